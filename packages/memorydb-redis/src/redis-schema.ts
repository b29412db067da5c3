import type { ResolvedRedisOptions } from './redis-config.js';
import { Fields } from './redis-records.js';
import { TAG_SEPARATOR } from './tag-field.js';

/**
 * The FT.CREATE command of a km index: a search index `{indexName}` on the hashes under
 * `{keyPrefix}`, with `tags` as a case-sensitive TAG field and `embedding` as a FLOAT32 COSINE
 * vector (HNSW, with the M / EF_CONSTRUCTION / EF_RUNTIME options given, or FLAT).
 *
 * ```ts
 * createIndexCommand('km-notes', 'km-notes:', 3, options);
 * // ['FT.CREATE', 'km-notes', 'ON', 'HASH', 'PREFIX', '1', 'km-notes:', 'SCHEMA',
 * //  'tags', 'TAG', 'SEPARATOR', ',', 'CASESENSITIVE',
 * //  'embedding', 'VECTOR', 'HNSW', '6', 'TYPE', 'FLOAT32', 'DIM', '3', 'DISTANCE_METRIC', 'COSINE']
 * ```
 */
export function createIndexCommand(
  indexName: string,
  keyPrefix: string,
  vectorSize: number,
  options: Pick<ResolvedRedisOptions, 'vectorAlgorithm' | 'hnsw'>,
): string[] {
  const vector = ['TYPE', 'FLOAT32', 'DIM', String(vectorSize), 'DISTANCE_METRIC', 'COSINE'];
  if (options.vectorAlgorithm === 'hnsw') {
    const { m, efConstruction, efRuntime } = options.hnsw;
    if (m !== undefined) vector.push('M', String(m));
    if (efConstruction !== undefined) vector.push('EF_CONSTRUCTION', String(efConstruction));
    if (efRuntime !== undefined) vector.push('EF_RUNTIME', String(efRuntime));
  }
  return [
    'FT.CREATE',
    indexName,
    'ON',
    'HASH',
    'PREFIX',
    '1',
    keyPrefix,
    'SCHEMA',
    Fields.tags,
    'TAG',
    'SEPARATOR',
    TAG_SEPARATOR,
    'CASESENSITIVE',
    Fields.embedding,
    'VECTOR',
    options.vectorAlgorithm.toUpperCase(),
    String(vector.length),
    ...vector,
  ];
}
