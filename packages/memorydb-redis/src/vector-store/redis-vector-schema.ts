import type { RecordDefinition } from '@km/core';
import type { ResolvedDataProperty, ResolvedKeyProperty, ResolvedVectorProperty } from '@km/core/connector';
import type { ResolvedRedisOptions } from '../redis-config.js';
import { TAG_SEPARATOR } from '../tag-field.js';
import { DISTANCE_METRICS } from './redis-vector-scores.js';

/** The alias of the KNN distance in a search reply (no attribute km makes starts with `__`). */
export const SCORE_ALIAS = '__km_score';

/** Storage names that can be used as they are as attribute names in queries (`@name`). */
const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The attribute name of each stored field in the search index, by storage name: the storage
 * name itself when it is a plain identifier (not starting with `__`), else `__km{n}` (`n` its
 * position in the definition: key, data, vectors), so any storage name works in a query.
 *
 * ```ts
 * attributeNames(definition).get('hotel name'); // '__km2'
 * ```
 */
export function attributeNames(definition: RecordDefinition): Map<string, string> {
  const names = new Map<string, string>();
  const all = [definition.key, ...definition.data, ...definition.vectors];
  all.forEach((property, i) => {
    const plain = PLAIN.test(property.storageName) && !property.storageName.startsWith('__');
    names.set(property.storageName, plain ? property.storageName : `__km${i}`);
  });
  return names;
}

/** How a property is indexed: TAG (exact values, case-sensitive), NUMERIC, or not at all. */
export function indexKind(property: ResolvedKeyProperty | ResolvedDataProperty): 'TAG' | 'NUMERIC' | undefined {
  if (property.kind === 'key') return property.type === 'integer' ? 'NUMERIC' : 'TAG';
  if (!property.filterable) return undefined;
  return property.type === 'number' || property.type === 'integer' || property.type === 'date' ? 'NUMERIC' : 'TAG';
}

/**
 * The FT.CREATE command of a collection: a search index on the hashes under `keyPrefix`; the key
 * and every filterable data property as a TAG (strings, uuids, booleans, arrays; separator `,`,
 * case-sensitive) or NUMERIC field (numbers, integers, dates as epoch ms); each vector as a
 * FLOAT32 VECTOR field (HNSW or FLAT) with the metric of its distance function. With
 * `storage.plainKey` the key is not indexed, nor are the properties of `storage.plainText`.
 *
 * ```ts
 * createCollectionCommand('kmvs-hotels', 'kmvs-hotels:', Hotel, options);
 * // ['FT.CREATE', 'kmvs-hotels', 'ON', 'HASH', 'PREFIX', '1', 'kmvs-hotels:', 'SCHEMA',
 * //  'hotelId', 'TAG', 'SEPARATOR', ',', 'CASESENSITIVE', 'rating', 'NUMERIC',
 * //  'embedding', 'VECTOR', 'HNSW', '6', 'TYPE', 'FLOAT32', 'DIM', '4', 'DISTANCE_METRIC', 'COSINE']
 * ```
 */
export function createCollectionCommand(
  indexName: string,
  keyPrefix: string,
  definition: RecordDefinition,
  options: Pick<ResolvedRedisOptions, 'vectorAlgorithm' | 'hnsw'>,
  storage: { plainKey?: boolean | undefined; plainText?: ReadonlySet<string> | undefined } = {},
): string[] {
  const attributes = attributeNames(definition);
  const field = (storageName: string) => {
    const attribute = attributes.get(storageName)!;
    return attribute === storageName ? [storageName] : [storageName, 'AS', attribute];
  };
  const schema: string[] = [];
  // A key or string kept as plain text (KM's `id`, `payload`) is not indexed: no filter reads it.
  const indexed = [...(storage.plainKey ? [] : [definition.key]), ...definition.data.filter((d) => !storage.plainText?.has(d.storageName))];
  for (const property of indexed) {
    const kind = indexKind(property);
    if (kind === 'TAG') schema.push(...field(property.storageName), 'TAG', 'SEPARATOR', TAG_SEPARATOR, 'CASESENSITIVE');
    if (kind === 'NUMERIC') schema.push(...field(property.storageName), 'NUMERIC');
  }
  for (const vector of definition.vectors) schema.push(...field(vector.storageName), ...vectorField(vector, options));
  return ['FT.CREATE', indexName, 'ON', 'HASH', 'PREFIX', '1', keyPrefix, 'SCHEMA', ...schema];
}

function vectorField(vector: ResolvedVectorProperty, options: Pick<ResolvedRedisOptions, 'vectorAlgorithm' | 'hnsw'>): string[] {
  const parameters = ['TYPE', 'FLOAT32', 'DIM', String(vector.dimensions), 'DISTANCE_METRIC', DISTANCE_METRICS[vector.distance]];
  if (options.vectorAlgorithm === 'hnsw') {
    const { m, efConstruction, efRuntime } = options.hnsw;
    if (m !== undefined) parameters.push('M', String(m));
    if (efConstruction !== undefined) parameters.push('EF_CONSTRUCTION', String(efConstruction));
    if (efRuntime !== undefined) parameters.push('EF_RUNTIME', String(efRuntime));
  }
  return ['VECTOR', options.vectorAlgorithm.toUpperCase(), String(parameters.length), ...parameters];
}
