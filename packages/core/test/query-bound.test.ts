import { describe, expect, it } from 'vitest';
import {
  CL100KTokenizer,
  HashingEmbeddingGenerator,
  SimpleVectorDb,
  type EmbeddingRequestOptions,
  type MemoryRecord,
  type SimilarityOptions,
} from '../src/index.js';
import { inMemoryBuilder } from './helpers.js';

const cl100k = new CL100KTokenizer();

/** Records every text embedded for a query. */
class QueryRecorder extends HashingEmbeddingGenerator {
  readonly queries: string[] = [];
  override readonly maxTokens: number;
  constructor(limit = 8192) {
    super();
    this.maxTokens = limit;
  }
  override async generateEmbeddings(texts: string[], signal?: AbortSignal, options?: EmbeddingRequestOptions): Promise<Float32Array[]> {
    if (options?.purpose === 'query') this.queries.push(...texts);
    return super.generateEmbeddings(texts, signal);
  }
}

/** Records the text of every similarity search (what BM25 reads in hybrid mode). */
class TextRecorder extends SimpleVectorDb {
  readonly texts: string[] = [];
  override getSimilarList(
    index: string,
    target: string | Float32Array,
    options?: SimilarityOptions,
  ): AsyncIterable<[MemoryRecord, number]> {
    this.texts.push(options?.text ?? (typeof target === 'string' ? target : ''));
    return super.getSimilarList(index, target, options);
  }
}

/** `count` words of filler, with a word every 50 that memory holds. */
function longText(count: number): string {
  return Array.from({ length: count }, (_, i) => (i % 50 === 0 ? 'comet' : `word${i % 997}`)).join(' ');
}

async function memoryWith(generator: QueryRecorder, db: TextRecorder, maxQueryTokens?: number) {
  const builder = inMemoryBuilder({ embeddingGenerator: generator, memoryDb: db });
  if (maxQueryTokens !== undefined) builder.withSearchOptions({ maxQueryTokens });
  const memory = builder.build();
  await memory.importText('Comets are icy bodies that release gas near the Sun. Their tails point away from it.', { documentId: 'comet' });
  return memory;
}

describe('a long query is cut before retrieval reads it (maxQueryTokens)', () => {
  it('search embeds and searches by words only the first 512 tokens of a 20,000-word query', async () => {
    const generator = new QueryRecorder();
    const db = new TextRecorder();
    const memory = await memoryWith(generator, db);
    const query = longText(20_000);
    const result = await memory.search(query);
    expect(result.results.length).toBeGreaterThan(0);
    expect(generator.queries.length).toBeGreaterThan(0);
    for (const text of [...generator.queries, ...db.texts]) {
      expect(cl100k.countTokens(text)).toBeLessThanOrEqual(512);
      expect(cl100k.countTokens(text)).toBeGreaterThan(400);
      expect(query.startsWith(text)).toBe(true);
    }
  });

  it('ask (extractive) reads a bounded question everywhere, and still echoes it whole', async () => {
    const generator = new QueryRecorder();
    const db = new TextRecorder();
    const memory = await memoryWith(generator, db);
    const question = `What are comets? ${longText(20_000)}`;
    const started = performance.now();
    const answer = await memory.ask(question);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(answer.question).toBe(question);
    for (const text of [...generator.queries, ...db.texts]) expect(cl100k.countTokens(text)).toBeLessThanOrEqual(512);
  });

  it('the bound is maxQueryTokens or the embedding model’s maxTokens, whichever is smaller', async () => {
    const small = new QueryRecorder(100);
    await (await memoryWith(small, new TextRecorder())).search(longText(2_000));
    expect(cl100k.countTokens(small.queries[0]!)).toBeLessThanOrEqual(100);
    const option = new QueryRecorder();
    await (await memoryWith(option, new TextRecorder(), 50)).search(longText(2_000));
    expect(cl100k.countTokens(option.queries[0]!)).toBeLessThanOrEqual(50);
    expect(cl100k.countTokens(option.queries[0]!)).toBeGreaterThan(40);
  });

  it('a short query is not touched', async () => {
    const generator = new QueryRecorder();
    await (await memoryWith(generator, new TextRecorder())).search('what is a comet?');
    expect(generator.queries[0]).toBe('what is a comet?');
  });

  it('refuses a maxQueryTokens that is not a positive integer', () => {
    expect(() => inMemoryBuilder().withSearchOptions({ maxQueryTokens: 0 }).build()).toThrow(/maxQueryTokens/);
  });
});

describe('CL100KTokenizer.truncate', () => {
  it('keeps a text that fits, cuts one that does not at a token boundary, in time bounded by the limit', () => {
    expect(cl100k.truncate('one two three', 10)).toBe('one two three');
    expect(cl100k.truncate('one two three four', 2)).toBe('one two');
    const huge = 'lorem ipsum dolor '.repeat(60_000); // about 1 MB
    const started = performance.now();
    const cut = cl100k.truncate(huge, 512);
    expect(performance.now() - started).toBeLessThan(500);
    expect(cl100k.countTokens(cut)).toBe(512);
    expect(huge.startsWith(cut)).toBe(true);
  });

  it('never ends inside a character', () => {
    const cut = cl100k.truncate('日本語のテキスト'.repeat(200), 101);
    expect(cut).not.toMatch(/\uFFFD/);
    expect(cl100k.countTokens(cut)).toBeLessThanOrEqual(101);
  });
});
