import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { QueryEmbeddingBatcher } from './query-embedding-batcher.js';
import { VectorLru } from './vector-lru.js';

/** Size of a {@link QueryEmbeddingCache}. */
export interface QueryEmbeddingCacheOptions {
  /** Most query vectors kept. @default 1000 */
  maxEntries?: number | undefined;
  /** Most numbers kept over all vectors (4 bytes each). @default 2097152 (8 MiB) */
  maxFloats?: number | undefined;
}

/** Default {@link QueryEmbeddingCacheOptions.maxEntries}. */
export const DEFAULT_QUERY_CACHE_ENTRIES = 1000;
/** Default {@link QueryEmbeddingCacheOptions.maxFloats}: 8 MiB of vectors. */
export const DEFAULT_QUERY_CACHE_FLOATS = 2 ** 21;

/**
 * The vectors of recent query texts of one embedding generator, least recently used first out,
 * keyed by the exact text and the generator's `modelName`. Misses go through a
 * {@link QueryEmbeddingBatcher}: concurrent queries share one embedding per text and go to the
 * model together. Every caller gets its own copy, so changing it does not change the cache.
 * Failed embeddings are not kept.
 *
 * ```ts
 * const vector = await queryEmbeddingCacheOf(generator).embed('moon landing', signal);
 * ```
 */
export class QueryEmbeddingCache {
  private readonly vectors: VectorLru;
  private readonly batcher: QueryEmbeddingBatcher;

  constructor(
    private readonly generator: ITextEmbeddingGenerator,
    options: QueryEmbeddingCacheOptions = {},
  ) {
    this.vectors = new VectorLru(limitsOf(options));
    this.batcher = new QueryEmbeddingBatcher(generator, (key, vector) => this.vectors.set(key, Float32Array.from(vector)));
  }

  /** Vectors kept. */
  get size(): number {
    return this.vectors.size;
  }

  /** The vector of a query text (a copy the caller owns); the signal's reason when it aborts first. */
  async embed(text: string, signal?: AbortSignal): Promise<Float32Array> {
    signal?.throwIfAborted();
    const key = `${this.generator.modelName ?? ''}\u0000${text}`;
    const kept = this.vectors.get(key);
    if (kept) return kept.slice();
    return Float32Array.from(await this.batcher.embed(key, text, signal));
  }

  /** Changes the limits, evicting the least recently used vectors that no longer fit. */
  resize(options: QueryEmbeddingCacheOptions): void {
    this.vectors.resize(limitsOf(options));
  }

  /** Forgets every kept vector. */
  clear(): void {
    this.vectors.clear();
  }
}

const caches = new WeakMap<ITextEmbeddingGenerator, QueryEmbeddingCache>();

/**
 * The query cache of a generator: one per generator instance, made on first use. `options`,
 * when given, size it (the last sizes given apply).
 */
export function queryEmbeddingCacheOf(generator: ITextEmbeddingGenerator, options?: QueryEmbeddingCacheOptions): QueryEmbeddingCache {
  let cache = caches.get(generator);
  if (!cache) {
    cache = new QueryEmbeddingCache(generator, options);
    caches.set(generator, cache);
  } else if (options) {
    cache.resize(options);
  }
  return cache;
}

/**
 * The vector of a search query: from the generator's query cache, or, with `cache: false`, from
 * one `generateEmbeddings([text], signal, { purpose: 'query' })` call.
 */
export async function embedQuery(
  generator: ITextEmbeddingGenerator,
  text: string,
  signal?: AbortSignal,
  cache: QueryEmbeddingCacheOptions | false = {},
): Promise<Float32Array> {
  if (cache === false) {
    const [vector] = await generator.generateEmbeddings([text], signal, { purpose: 'query' });
    return vector!;
  }
  const sized = cache.maxEntries !== undefined || cache.maxFloats !== undefined;
  return queryEmbeddingCacheOf(generator, sized ? cache : undefined).embed(text, signal);
}

function limitsOf(options: QueryEmbeddingCacheOptions): { maxEntries: number; maxFloats: number } {
  return {
    maxEntries: Math.max(0, Math.floor(options.maxEntries ?? DEFAULT_QUERY_CACHE_ENTRIES)),
    maxFloats: Math.max(0, Math.floor(options.maxFloats ?? DEFAULT_QUERY_CACHE_FLOATS)),
  };
}
