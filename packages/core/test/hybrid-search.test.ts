import { describe, expect, it } from 'vitest';
import type { CheckedRecord, DriverSearch, MemoryDbDriver } from '../src/connector.js';
import {
  CL100KTokenizer,
  MemoryDb,
  MemoryFilters,
  SimpleVectorDb,
  isKmError,
  type ITextEmbeddingGenerator,
  type MemoryRecord,
  type SimilarityOptions,
} from '../src/index.js';
import { collect } from './helpers.js';

const record = (id: string, vector: number[], text: string, tags: Record<string, string[]> = {}): MemoryRecord => ({
  id,
  vector,
  tags,
  payload: { text },
});

const QUERY = [1, 0, 0];
/** Near the query vector but sharing no word with the query text; `words` is the opposite. */
const records = [
  record('vec', [1, 0, 0], 'an unrelated sentence', { side: ['vector'] }),
  record('near1', [1, 0.1, 0], 'more unrelated prose', { side: ['vector'] }),
  record('near2', [1, 0.2, 0], 'still nothing relevant', { side: ['vector'] }),
  record('near3', [1, 0.3, 0], 'filler text here', { side: ['vector'] }),
  record('words', [0, 1, 0], 'volcano eruption report', { side: ['words'] }),
  record('far', [-1, 0, 0], 'volcano', { side: ['words'] }),
];

async function seeded(): Promise<SimpleVectorDb> {
  const db = new SimpleVectorDb({ embeddingGenerator: fixedEmbeddings(QUERY) });
  await db.upsertBatch('docs', records);
  return db;
}

/** Embeds every text as `vector`, and records the texts. */
function fixedEmbeddings(vector: number[]): ITextEmbeddingGenerator & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    maxTokens: 8192,
    dimensions: vector.length,
    tokenizer: new CL100KTokenizer(),
    async generateEmbeddings(input: string[]) {
      texts.push(...input);
      return input.map(() => Float32Array.from(vector));
    },
  };
}

const search = async (db: MemoryDb, query: string | number[], options: SimilarityOptions) =>
  (await collect(db.getSimilarList('docs', query, options))).map(([r, relevance]) => [r.id, Number(relevance.toFixed(4))]);

const rejects = (db: MemoryDb, query: string | number[], options: SimilarityOptions, message: RegExp) =>
  expect(collect(db.getSimilarList('docs', query, options))).rejects.toSatisfy(
    (e: unknown) => isKmError(e, 'invalid_argument') && message.test((e as Error).message),
  );

describe('MemoryDb hybrid search (SimpleVectorDb)', () => {
  it('finds a record only the words find and one only the vector finds; relevance stays the cosine', async () => {
    const db = await seeded();
    const vectorTop = await search(db, QUERY, { limit: 3 });
    expect(vectorTop.map(([id]) => id)).toEqual(['vec', 'near1', 'near2']);
    const hybrid = await search(db, QUERY, { mode: 'hybrid', text: 'volcano eruption', limit: 3 });
    // rrf over max(limit, 50) candidates a side: 'words' is lexical rank 1 and vector rank 5 (cosine 0 >= 0),
    // 0.5/61 + 0.5/65; 'vec' is vector rank 1 only, 0.5/61; then near1, 0.5/62.
    expect(hybrid).toEqual([
      ['words', 0],
      ['vec', 1],
      ['near1', 0.995],
    ]);
  });

  it('embeds a text query with the wrapper embedding generator and uses it as the words too', async () => {
    const db = await seeded();
    const hits = await search(db, 'volcano eruption', { mode: 'hybrid', limit: 2 });
    expect(hits.map(([id]) => id)).toEqual(['words', 'vec']);
  });

  it('drops results whose cosine is below minRelevance, on both sides, before fusing', async () => {
    const db = await seeded();
    const hits = await search(db, QUERY, { mode: 'hybrid', text: 'volcano eruption', minRelevance: 0.5 });
    expect(hits.map(([id]) => id)).toEqual(['vec', 'near1', 'near2', 'near3']);
    // 'far' matches the words but its cosine is -1: below the default minRelevance 0, kept at -1.
    expect((await search(db, QUERY, { mode: 'hybrid', text: 'volcano' })).map(([id]) => id)).not.toContain('far');
    const rrf = { method: 'rrf', vectorWeight: 0.5 } as const;
    expect(await search(db, QUERY, { mode: 'hybrid', text: 'volcano', minRelevance: -1, limit: 2, fusion: rrf })).toEqual([
      ['far', -1], // lexical rank 1 (shortest text), vector rank 6: 0.5/61 + 0.5/66
      ['words', 0], // lexical rank 2, vector rank 5: 0.5/62 + 0.5/65
    ]);
  });

  it('weighted fusion: vectorWeight 0 ranks by the words alone, 1 by the vector alone', async () => {
    const db = await seeded();
    const byWords = await search(db, QUERY, {
      mode: 'hybrid',
      text: 'volcano eruption',
      limit: 2,
      minRelevance: -1,
      fusion: { method: 'weighted', vectorWeight: 0 },
    });
    expect(byWords.map(([id]) => id)).toEqual(['words', 'far']);
    const byVector = await search(db, QUERY, {
      mode: 'hybrid',
      text: 'volcano eruption',
      limit: 2,
      fusion: { method: 'weighted', vectorWeight: 1 },
    });
    expect(byVector.map(([id]) => id)).toEqual(['vec', 'near1']);
  });

  it('applies the filters to both sides and honours withEmbeddings', async () => {
    const db = await seeded();
    const hits = await collect(
      db.getSimilarList('docs', QUERY, {
        mode: 'hybrid',
        text: 'volcano',
        filters: [MemoryFilters.byTag('side', 'words')],
        minRelevance: -1,
        withEmbeddings: true,
      }),
    );
    expect(hits.map(([r]) => r.id).sort()).toEqual(['far', 'words']);
    expect(hits.every(([r]) => r.vector.length === 3)).toBe(true);
    const bare = await collect(db.getSimilarList('docs', QUERY, { mode: 'hybrid', text: 'volcano' }));
    expect(bare.every(([r]) => r.vector.length === 0)).toBe(true);
  });

  it('a missing index yields nothing', async () => {
    const db = await seeded();
    expect(await collect(db.getSimilarList('missing', QUERY, { mode: 'hybrid', text: 'volcano' }))).toEqual([]);
  });
});

describe('MemoryDb search modes: bad input', () => {
  it('refuses an unknown mode, bad fusion, and a lexical or hybrid search without words', async () => {
    const db = await seeded();
    await rejects(db, QUERY, { mode: 'semantic' as never }, /search mode/);
    await rejects(db, QUERY, { mode: 'lexical' }, /options\.text/);
    await rejects(db, QUERY, { mode: 'hybrid' }, /options\.text/);
    await rejects(db, '   ', { mode: 'lexical' }, /words/);
    await rejects(db, QUERY, { mode: 'hybrid', text: ' \n' }, /words/);
    await rejects(db, QUERY, { mode: 'hybrid', text: 'volcano', fusion: { method: 'sum' as never } }, /fusion\.method/);
    await rejects(db, QUERY, { mode: 'hybrid', text: 'volcano', fusion: { vectorWeight: 2 } }, /vectorWeight/);
    await rejects(db, QUERY, { mode: 'hybrid', text: 'volcano', fusion: { rrfK: 0 } }, /rrfK/);
  });

  it('lexical mode with a vector query reads options.text; with a text query needs no embedding generator', async () => {
    const db = new SimpleVectorDb();
    await db.upsertBatch('docs', records);
    expect((await search(db, QUERY, { mode: 'lexical', text: 'eruption' })).map(([id]) => id)).toEqual(['words']);
    expect((await search(db, 'eruption', { mode: 'lexical' })).map(([id]) => id)).toEqual(['words']);
  });

  it('refuses lexical and hybrid on a DB without lexicalSearch, naming the DB and the mode', async () => {
    const db = new MemoryDb(new VectorOnlyDriver());
    await db.upsert('docs', record('a', [1, 0, 0], 'volcano'));
    await rejects(db, 'volcano', { mode: 'lexical' }, /vector-only.*lexical/);
    await rejects(db, QUERY, { mode: 'hybrid', text: 'volcano' }, /vector-only.*hybrid/);
    expect(await search(db, QUERY, {})).toEqual([['a', 1]]); // vector mode unchanged
  });
});

/** A driver with vector search only. */
class VectorOnlyDriver implements MemoryDbDriver {
  readonly name = 'vector-only';
  readonly capabilities = { createsIndexOnUpsert: true };
  private readonly records = new Map<string, CheckedRecord>();
  private size: number | undefined;
  async vectorSize() {
    return this.size;
  }
  async createIndex(_index: string, size: number) {
    this.size = size;
  }
  async listIndexes() {
    return this.size === undefined ? [] : ['docs'];
  }
  async deleteIndex() {}
  async upsertBatch(_index: string, records: CheckedRecord[]) {
    for (const r of records) this.records.set(r.id, r);
  }
  async search(_index: string, _query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    return [...this.records.values()].map((r) => [{ id: r.id, vector: r.vector, tags: r.tags, payload: JSON.parse(r.payloadJson) }, 1]);
  }
  async *list() {}
  async delete() {}
}
