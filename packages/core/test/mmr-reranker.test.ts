import { describe, expect, it } from 'vitest';
import { HashingEmbeddingGenerator, MmrReranker, ReservedTags, type MemoryRecord } from '../src/index.js';
import { RERANK_CANDIDATES, rerankMatches } from '../src/search/rerank-step.js';
import { thrownCode } from './helpers.js';

const embeddings = new HashingEmbeddingGenerator();
const QUERY = 'garage parking spaces';
const A = 'The garage has 120 parking spaces for staff.';
const A2 = 'The garage has 120 parking spaces for the staff.';
const B = 'Visitors get a parking permit for one day at the reception.';

describe('MmrReranker', () => {
  it('drops a near-duplicate below a distinct passage', async () => {
    const texts = [A, A2, B];
    const candidates = texts.map((text, i) => ({ text, relevance: [0.9, 0.89, 0.5][i]!, vector: embeddings.embed(text) }));
    const order = await new MmrReranker().rerank(QUERY, candidates, { queryVector: embeddings.embed(QUERY) });
    expect(order.map((r) => texts[r.index])).toEqual([A, B, A2]);
    // lambda 1 is relevance alone: the duplicate stays second.
    const plain = await new MmrReranker({ lambda: 1 }).rerank(QUERY, candidates, { queryVector: embeddings.embed(QUERY) });
    expect(plain.map((r) => r.index)).toEqual([0, 1, 2]);
  });

  it('uses the retrieval relevance without a query vector, honours top, and refuses a lambda outside [0, 1]', async () => {
    const candidates = [0.2, 0.8, 0.5].map((relevance, i) => ({
      text: `t${i}`,
      relevance,
      vector: [i === 0 ? 1 : 0, i === 1 ? 1 : 0, i === 2 ? 1 : 0],
    }));
    const order = await new MmrReranker().rerank('q', candidates, { top: 2 });
    expect(order.map((r) => r.index)).toEqual([1, 2]);
    for (const lambda of [2, -0.1, Number.NaN]) expect(thrownCode(() => new MmrReranker({ lambda }))).toBe('invalid_argument');
  });
});

describe('rerankMatches', () => {
  const rec = (id: string, text: string): MemoryRecord => ({
    id,
    vector: [],
    tags: { [ReservedTags.documentId]: [id] },
    payload: { text },
  });

  it('embeds the candidates and the query MMR lacks, in one call, and keeps the retrieval relevance', async () => {
    const calls: number[] = [];
    const counting = new (class extends HashingEmbeddingGenerator {
      override async generateEmbeddings(texts: string[]) {
        calls.push(texts.length);
        return texts.map((t) => this.embed(t));
      }
    })();
    const matches: Array<[MemoryRecord, number]> = [
      [rec('a', A), 0.9],
      [rec('a2', A2), 0.89],
      [rec('b', B), 0.5],
    ];
    const out = await rerankMatches(new MmrReranker(), QUERY, matches, { embeddingGenerator: counting });
    expect(calls).toEqual([4]);
    expect(out.map(([r, relevance]) => [r.id, relevance])).toEqual([
      ['a', 0.9],
      ['b', 0.5],
      ['a2', 0.89],
    ]);
  });

  it('reranks only the first RERANK_CANDIDATES; the rest follow in retrieval order', async () => {
    const matches = Array.from(
      { length: RERANK_CANDIDATES + 5 },
      (_, i) => [rec(`r${i}`, `text ${i}`), 1 - i / 100] as [MemoryRecord, number],
    );
    let offered = 0;
    const out = await rerankMatches(
      {
        name: 'reverse',
        rerank: async (_q, c) => {
          offered = c.length;
          return c.map((_, i) => ({ index: c.length - 1 - i, score: i }));
        },
      },
      'q',
      matches,
      {},
    );
    expect(offered).toBe(RERANK_CANDIDATES);
    expect(out[0]![0].id).toBe(`r${RERANK_CANDIDATES - 1}`);
    expect(out.slice(RERANK_CANDIDATES).map(([r]) => r.id)).toEqual(matches.slice(RERANK_CANDIDATES).map(([r]) => r.id));
  });
});

describe('rerankMatches after hybrid or lexical retrieval', () => {
  // Fused order puts "fused-first" first although its cosine is the lowest: MMR must start from
  // the retrieval's order, not from the cosine (which would bring back the vector order).
  const rec = (id: string, vector: number[]): MemoryRecord => ({
    id,
    vector,
    tags: { [ReservedTags.documentId]: [id] },
    payload: { text: id },
  });
  const matches: Array<[MemoryRecord, number]> = [
    [rec('fused-first', [1, 0, 0]), 0.2],
    [rec('fused-second', [0, 1, 0]), 0.9],
    [rec('fused-third', [0, 0, 1]), 0.5],
  ];

  it('keeps the fused order as the relevance in hybrid mode, and the cosine in vector mode', async () => {
    const hybrid = await rerankMatches(new MmrReranker(), 'q', matches, { mode: 'hybrid', queryVector: new Float32Array([0, 1, 0]) });
    expect(hybrid.map(([r]) => r.id)).toEqual(['fused-first', 'fused-second', 'fused-third']);
    expect(hybrid.map(([, relevance]) => relevance)).toEqual([0.2, 0.9, 0.5]);
    const vector = await rerankMatches(new MmrReranker(), 'q', matches, { mode: 'vector', queryVector: new Float32Array([0, 1, 0]) });
    expect(vector.map(([r]) => r.id)).toEqual(['fused-second', 'fused-third', 'fused-first']);
  });
});
