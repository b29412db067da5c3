import { defineRecord, type DataPropertyType, type KeyType, type RecordDefinition, type RecordDefinitionInput } from '@km/core';
import { generatedKey, ROUND_TRIP_KEYS, ROUND_TRIP_VALUES } from './record-values.js';
import { seededVectors } from './seeded-random.js';
import type { AnyRecord, VectorStoreCapabilities } from './vector-store-fixture.js';

/** The property that holds each data type in {@link everyTypeDefinition}. */
export const PROPERTY_OF_TYPE: { readonly [T in DataPropertyType]: string } = {
  string: 'text',
  number: 'amount',
  integer: 'count',
  boolean: 'flag',
  date: 'when',
  'string[]': 'labels',
  'number[]': 'measures',
};

/** Optional properties of {@link everyTypeDefinition}, by type. */
export const OPTIONAL_OF_TYPE: Partial<{ readonly [T in DataPropertyType]: string }> = {
  string: 'note',
  number: 'weight',
  date: 'until',
};

/** The data types the store can hold (every type when it does not say). */
export function supportedDataTypes(capabilities: VectorStoreCapabilities): DataPropertyType[] {
  return (Object.keys(PROPERTY_OF_TYPE) as DataPropertyType[]).filter((t) => capabilities.dataTypes.includes(t));
}

/** A definition from a loosely built input (the suite builds them from the capabilities). */
export function define(input: RecordDefinitionInput): RecordDefinition<AnyRecord> {
  return defineRecord(input) as unknown as RecordDefinition<AnyRecord>;
}

/**
 * A definition with a property of every data type the store holds, optional ones too, a
 * vector `embedding` of 4 dimensions with the store's first distance function, and the given
 * key type.
 */
export function everyTypeDefinition(
  capabilities: VectorStoreCapabilities,
  keyType: KeyType,
  filterable = false,
): RecordDefinition<AnyRecord> {
  const data: Record<string, { type: DataPropertyType; filterable: boolean; optional?: boolean }> = {};
  for (const type of supportedDataTypes(capabilities)) {
    data[PROPERTY_OF_TYPE[type]] = { type, filterable };
    const optional = OPTIONAL_OF_TYPE[type];
    if (optional) data[optional] = { type, filterable, optional: true };
  }
  return define({
    key: { name: 'id', type: keyType },
    data,
    vectors: { embedding: { dimensions: 4, distance: capabilities.distances[0]! } },
  });
}

/**
 * Records of {@link everyTypeDefinition} holding every value of `ROUND_TRIP_VALUES` and every
 * key of `ROUND_TRIP_KEYS`; optional values are in turn left out, null, or set.
 */
export function everyTypeRecords(definition: RecordDefinition<AnyRecord>): AnyRecord[] {
  const keys = ROUND_TRIP_KEYS[definition.key.type];
  const lists = definition.data.map((p) => ROUND_TRIP_VALUES[p.type].length);
  const count = Math.max(keys.length, ...lists);
  const vectors = seededVectors(count, 4, 11);
  return Array.from({ length: count }, (_, i) => {
    const record: AnyRecord = { id: i < keys.length ? keys[i] : generatedKey(definition.key.type, 1000 + i), embedding: vectors[i] };
    for (const p of definition.data) {
      const values = ROUND_TRIP_VALUES[p.type];
      const value = values[i % values.length];
      if (!p.optional) record[p.name] = value;
      else if (i % 3 === 1) record[p.name] = null;
      else if (i % 3 === 2) record[p.name] = value;
    }
    return record;
  });
}

/** A small definition: string key `id`, a string `title`, and a vector `embedding` of `dimensions`. */
export function smallDefinition(capabilities: VectorStoreCapabilities, dimensions = 4): RecordDefinition<AnyRecord> {
  return define({
    key: { name: 'id', type: capabilities.keyTypes.includes('string') ? 'string' : capabilities.keyTypes[0]! },
    data: { title: { type: 'string' } },
    vectors: { embedding: { dimensions, distance: capabilities.distances[0]! } },
  });
}

/** The `i`-th record of {@link smallDefinition}. */
export function smallRecord(definition: RecordDefinition<AnyRecord>, i: number, vector?: ArrayLike<number>): AnyRecord {
  const dimensions = definition.vectors[0]!.dimensions;
  return {
    id: generatedKey(definition.key.type, i),
    title: `title ${i}`,
    embedding: Float32Array.from(vector ?? Array.from({ length: dimensions }, (_, d) => (d === i % dimensions ? 1 : 0.25))),
  };
}
