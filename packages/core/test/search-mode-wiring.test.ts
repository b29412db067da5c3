import { describe, expect, it } from 'vitest';
import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  ReservedTags,
  SimpleTextDb,
  isKmError,
  silentLogger,
  type ITextReranker,
  type MemoryDbCapabilities,
  type MemoryRecord,
  type RerankCandidate,
  type SimilarityOptions,
} from '../src/index.js';
import { SearchOnlyDb } from './helpers.js';
import { SearchClient, type RetrievalRequest } from '../src/connector.js';

/** A memory DB that returns fixed matches and records the options of every similarity search. */
class RecordingDb extends SearchOnlyDb {
  readonly calls: Array<{ query: string | Float32Array | number[]; options: SimilarityOptions }> = [];
  constructor(
    readonly capabilities: MemoryDbCapabilities,
    private readonly found: Array<[MemoryRecord, number]> = [],
  ) {
    super();
  }
  protected async matches(query: string | Float32Array | number[], options: SimilarityOptions): Promise<Array<[MemoryRecord, number]>> {
    this.calls.push({ query, options });
    if (options.mode && options.mode !== 'vector' && !this.capabilities.lexicalSearch) {
      const { InvalidInputError } = await import('../src/errors/km-error.js');
      throw new InvalidInputError('invalid_argument', `mode ${options.mode} needs the lexicalSearch capability`);
    }
    return this.found.filter((m) => m[1] >= (options.minRelevance ?? 0));
  }
}

function rec(id: string, text: string): MemoryRecord {
  return { id, vector: [], tags: { [ReservedTags.documentId]: [id], [ReservedTags.fileId]: ['f'] }, payload: { text, file: `${id}.txt` } };
}

const MATCHES: Array<[MemoryRecord, number]> = [
  [rec('a', 'Alpha passage about apples.'), 0.9],
  [rec('b', 'Beta passage about bananas.'), 0.6],
  [rec('c', 'Gamma passage about cherries.'), 0.3],
];

/** Reverses the candidates; records what it was given. */
class ReversingReranker implements ITextReranker {
  readonly name = 'reverse';
  readonly seen: RerankCandidate[][] = [];
  async rerank(_: string, candidates: readonly RerankCandidate[]) {
    this.seen.push([...candidates]);
    return candidates.map((_, i) => ({ index: candidates.length - 1 - i, score: i }));
  }
}

function client(
  capabilities: MemoryDbCapabilities = {},
  options: ConstructorParameters<typeof SearchClient>[1] = {},
  reranker?: ITextReranker,
) {
  const db = new RecordingDb(capabilities, MATCHES);
  const search = new SearchClient(
    { memoryDb: db, embeddingGenerator: new HashingEmbeddingGenerator(), textGenerator: undefined, logger: silentLogger, reranker },
    options,
  );
  return { db, search };
}

const request = (extra: Partial<RetrievalRequest> = {}): RetrievalRequest => ({ index: 'kb', filters: [], ...extra });
const code = (e: unknown, text: RegExp) => isKmError(e, 'invalid_argument') && text.test((e as Error).message);

describe('search and ask: mode, fusion, rerank and minRelevance reach the memory DB', () => {
  it('passes mode, the query text and fusion to the DB, for search and ask', async () => {
    const { db, search } = client({ lexicalSearch: true });
    await search.search('apples', request({ mode: 'hybrid', fusion: { method: 'weighted', vectorWeight: 0.7 } }));
    await search.ask('apples?', request({ mode: 'lexical' }));
    expect(db.calls[0]!.options).toMatchObject({ mode: 'hybrid', text: 'apples', fusion: { method: 'weighted', vectorWeight: 0.7 } });
    expect(db.calls[0]!.query).toBeInstanceOf(Float32Array);
    expect(db.calls[1]!.options).toMatchObject({ mode: 'lexical', text: 'apples?' });
    expect(db.calls[1]!.query).toBe('apples?');
  });

  it('MemoryServerless hands RetrievalOptions.mode, fusion and rerank to the search client', async () => {
    const db = new RecordingDb({ lexicalSearch: true }, MATCHES);
    const memory = new KernelMemoryBuilder()
      .withMemoryDb(db)
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withLogger(silentLogger)
      .build();
    await memory.search('apples', { mode: 'hybrid', fusion: { rrfK: 10 }, rerank: 'mmr' });
    expect(db.calls[0]!.options).toMatchObject({ mode: 'hybrid', fusion: { rrfK: 10 }, withEmbeddings: true });
  });

  it('uses defaultMode when the request gives none, but falls back to vector on a DB without lexical search', async () => {
    const capable = client({ lexicalSearch: true }, { defaultMode: 'hybrid' });
    await capable.search.search('apples', request());
    expect(capable.db.calls[0]!.options.mode).toBe('hybrid');
    const plain = client({}, { defaultMode: 'hybrid' });
    await plain.search.search('apples', request());
    expect(plain.db.calls[0]!.options.mode).toBe('vector');
    // Asking for it explicitly gets the DB's refusal.
    await expect(plain.search.search('apples', request({ mode: 'lexical' }))).rejects.toSatisfy((e) => isKmError(e, 'invalid_argument'));
  });

  it('does not default to hybrid on a store with words but no vectors (its plain search ranks the words)', async () => {
    const words = client({ lexicalSearch: true, vectorSearch: false }, { defaultMode: 'hybrid' });
    await words.search.search('apples', request());
    expect(words.db.calls[0]!.options.mode).toBe('vector');
    // The real store: search and ask with the defaults work on SimpleTextDb.
    const memory = new KernelMemoryBuilder().withMemoryDb(new SimpleTextDb()).withLogger(silentLogger).build();
    await memory.importText('Apples grow on trees in the orchard.', { documentId: 'apples' });
    await memory.importText('The library opens at nine.', { documentId: 'library' });
    const found = await memory.search('apples orchard');
    expect(found.results.map((c) => c.documentId)).toEqual(['apples']);
    expect((await memory.ask('Where do apples grow?')).noResult).toBe(false);
    // Word scores are no cosines: the embedding model's floor does not apply to them.
    const filler = 'The orchard also keeps bees, sells honey at the gate on Saturdays and hires pickers every autumn.';
    await memory.importText(`${filler.repeat(6)} Pears ripen late. Apples grow on the south slope.`, { documentId: 'long', index: 'long' });
    const answer = await memory.ask('Where do pears ripen?', { index: 'long' });
    expect(answer.noResult).toBe(false);
    expect(answer.text).toContain('Pears ripen late');
  });

  it('refuses an unknown mode, rerank or fusion, naming the field', async () => {
    const { search } = client();
    await expect(search.search('x', request({ mode: 'fuzzy' as never }))).rejects.toSatisfy((e) => code(e, /^.*mode/));
    await expect(search.ask('x?', request({ rerank: 'cohere' as never }))).rejects.toSatisfy((e) => code(e, /rerank/));
    await expect(search.search('x', request({ fusion: { method: 'max' } as never }))).rejects.toSatisfy((e) => code(e, /fusion\.method/));
    await expect(search.search('', request({ mode: 'fuzzy' as never }))).rejects.toSatisfy((e) => code(e, /mode/));
  });

  it('refuses rerank: true when no reranker is configured', async () => {
    const { search } = client();
    await expect(search.search('apples', request({ rerank: true }))).rejects.toSatisfy((e) => code(e, /no reranker is configured/));
    await expect(search.ask('apples?', request({ rerank: true }))).rejects.toSatisfy((e) => code(e, /no reranker is configured/));
  });

  it('reranks with the configured reranker unless the request says false; relevance stays the retrieval relevance', async () => {
    const reranker = new ReversingReranker();
    const { search } = client({}, {}, reranker);
    const order = (r: Awaited<ReturnType<typeof search.search>>) => r.results.map((c) => [c.documentId, c.partitions[0]!.relevance]);
    expect(order(await search.search('apples', request()))).toEqual([
      ['c', 0.3],
      ['b', 0.6],
      ['a', 0.9],
    ]);
    expect(reranker.seen[0]!.map((c) => c.text)).toEqual(MATCHES.map(([r]) => r.payload.text));
    expect(order(await search.search('apples', request({ rerank: false }))).map(([id]) => id)).toEqual(['a', 'b', 'c']);
    expect(reranker.seen).toHaveLength(1);
  });

  it('never reranks unless configured or asked, and asks the DB for vectors only for MMR', async () => {
    const { db, search } = client();
    const plain = await search.search('apples', request());
    expect(plain.results.map((c) => c.documentId)).toEqual(['a', 'b', 'c']);
    expect(db.calls[0]!.options.withEmbeddings).toBe(false);
    await search.search('apples', request({ rerank: 'mmr' }));
    expect(db.calls[1]!.options.withEmbeddings).toBe(true);
  });

  it('applies defaultMinRelevance when the caller gives no minRelevance, for search and ask', async () => {
    const { db, search } = client({}, { defaultMinRelevance: 0.5 });
    const result = await search.search('apples', request());
    expect(db.calls[0]!.options.minRelevance).toBe(0.5);
    expect(result.results.map((c) => c.documentId)).toEqual(['a', 'b']);
    await search.ask('apples?', request());
    expect(db.calls[1]!.options.minRelevance).toBe(0.5);
    await search.search('apples', request({ minRelevance: 0 }));
    expect(db.calls[2]!.options.minRelevance).toBe(0);
  });

  it('MemoryServerless leaves minRelevance absent when the caller gives none', async () => {
    const db = new RecordingDb({}, MATCHES);
    const memory = new KernelMemoryBuilder()
      .withMemoryDb(db)
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withSearchOptions({ defaultMinRelevance: 0.7 })
      .withLogger(silentLogger)
      .build();
    expect((await memory.search('apples')).results.map((c) => c.documentId)).toEqual(['a']);
    expect((await memory.search('apples', { minRelevance: 0.1 })).results).toHaveLength(3);
  });

  it('KernelMemoryBuilder.withReranker configures the reranker', async () => {
    const db = new RecordingDb({}, MATCHES);
    const memory = new KernelMemoryBuilder()
      .withMemoryDb(db)
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withReranker(new ReversingReranker())
      .withLogger(silentLogger)
      .build();
    expect((await memory.search('apples')).results.map((c) => c.documentId)).toEqual(['c', 'b', 'a']);
  });
});

describe('search limits', () => {
  it('a huge or fractional limit is bounded and whole (it allocated a top-k of that size and failed)', async () => {
    const { MAX_SEARCH_LIMIT, searchLimit } = await import('../src/memory-storage/search-limit.js');
    expect(searchLimit(2_000_000_000, 100)).toBe(MAX_SEARCH_LIMIT);
    expect(searchLimit(2.5, 100)).toBe(3);
    expect(searchLimit(0, 100)).toBe(100);
    const memory = new KernelMemoryBuilder().withLogger(silentLogger).build();
    await memory.importText('Apples grow in the orchard.', { documentId: 'apples' });
    const found = await memory.search('apples', { limit: 2_000_000_000 });
    expect(found.results.map((c) => c.documentId)).toEqual(['apples']);
  });
});
