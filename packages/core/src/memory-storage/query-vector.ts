import { embedQuery, type QueryEmbeddingCacheOptions } from '../ai/query-embedding-cache.js';
import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { KmError } from '../errors/km-error.js';
import { checkVector } from './vector-math.js';

/**
 * The vector of a similarity query: a vector is checked and returned; a text is embedded with
 * `generator` through its query cache (see `QueryEmbeddingCache`; `cache: false` calls the
 * generator each time), or refused with `not_configured` when there is none. For connectors.
 * The vector returned for a text is the caller's own copy.
 */
export async function resolveQueryVector(
  query: string | Float32Array | number[],
  generator: ITextEmbeddingGenerator | undefined,
  connector: string,
  signal?: AbortSignal,
  cache: QueryEmbeddingCacheOptions | false = {},
): Promise<Float32Array | number[]> {
  if (typeof query !== 'string') return checkVector(query, 'query vector');
  if (!generator) {
    throw new KmError('not_configured', 'a text query needs an embedding generator; pass a vector or configure one', { connector });
  }
  return embedQuery(generator, query, signal, cache);
}
