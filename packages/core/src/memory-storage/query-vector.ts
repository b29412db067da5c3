import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { KmError } from '../errors/km-error.js';
import { checkVector } from './vector-math.js';

/**
 * The vector of a similarity query: a vector is checked and returned; a text is embedded with
 * `generator`, or refused with `not_configured` when there is none. For connectors.
 */
export async function resolveQueryVector(
  query: string | Float32Array | number[],
  generator: ITextEmbeddingGenerator | undefined,
  connector: string,
  signal?: AbortSignal,
): Promise<Float32Array | number[]> {
  if (typeof query !== 'string') return checkVector(query, 'query vector');
  if (!generator) {
    throw new KmError('not_configured', 'a text query needs an embedding generator; pass a vector or configure one', { connector });
  }
  const [vector] = await generator.generateEmbeddings([query], signal, { purpose: 'query' });
  return vector!;
}
