import type { estypes } from '@elastic/elasticsearch';
import { InvalidInputError, KmError, type DataPropertyType, type DistanceFunction, type RecordDefinition } from '@km/core';
import type { ElasticsearchFieldStorage, ElasticsearchVectorStoreOptions } from './elasticsearch-vector-store-options.js';

const CONNECTOR = 'elasticsearch';

/**
 * The `dense_vector` similarity of each km distance function. `dot` is `max_inner_product`
 * (Elasticsearch 8.11+), which takes vectors of any length; `dot_product` would demand unit
 * vectors.
 */
export const ELASTICSEARCH_SIMILARITIES: Readonly<Record<DistanceFunction, string>> = {
  cosine: 'cosine',
  dot: 'max_inner_product',
  euclidean: 'l2_norm',
};

/** The field type of each data type (an array is a field of its element type). */
export const ELASTICSEARCH_FIELD_TYPES: Readonly<Record<DataPropertyType, 'keyword' | 'double' | 'long' | 'boolean' | 'date'>> = {
  string: 'keyword',
  'string[]': 'keyword',
  number: 'double',
  'number[]': 'double',
  integer: 'long',
  boolean: 'boolean',
  date: 'date',
};

/**
 * The strict mapping of a new index for a definition: the key as `keyword` (`long` for integer
 * keys), data properties as keyword / double / long / boolean / date (a `fullText` string gets a
 * `text` sub-field; `storage` may keep a string as a native JSON object or as `text` alone), vectors as indexed `dense_vector`s with the distance's similarity and a
 * plain float HNSW graph (quantised graphs would move scores away from the exact distance).
 *
 * ```ts
 * vectorIndexMappings(Hotel, {}).properties.embedding;
 * // { type: 'dense_vector', dims: 4, index: true, similarity: 'cosine', index_options: { type: 'hnsw', m: 16, ef_construction: 100 } }
 * ```
 */
export function vectorIndexMappings(
  definition: RecordDefinition,
  hnsw: ElasticsearchVectorStoreOptions['hnsw'],
  storage: ElasticsearchFieldStorage = {},
): estypes.MappingTypeMapping {
  const properties: Record<string, estypes.MappingProperty> = {
    [definition.key.storageName]: { type: definition.key.type === 'integer' ? 'long' : 'keyword' },
  };
  for (const p of definition.data) {
    const type = ELASTICSEARCH_FIELD_TYPES[p.type];
    if (storage.jsonFields?.includes(p.storageName)) properties[p.storageName] = { type: 'object', enabled: false };
    else if (storage.textFields?.includes(p.storageName)) properties[p.storageName] = { type: 'text' };
    else properties[p.storageName] = type === 'keyword' && p.fullText ? { type, fields: { text: { type: 'text' } } } : { type };
  }
  for (const v of definition.vectors) {
    properties[v.storageName] = {
      type: 'dense_vector',
      dims: v.dimensions,
      index: true,
      similarity: ELASTICSEARCH_SIMILARITIES[v.distance],
      index_options: { type: 'hnsw', m: hnsw?.m ?? 16, ef_construction: hnsw?.efConstruction ?? 100 },
    } as estypes.MappingProperty;
  }
  return { dynamic: 'strict', properties };
}

/**
 * Checks an existing index's mapping against a definition: the key, every data property and
 * every vector must be a mapped field; vectors must be `dense_vector`s of the definition's size
 * (`vector_size_mismatch`) and similarity. Throws `invalid_argument` naming the first field that
 * is missing or mapped otherwise.
 */
export function checkExistingMapping(index: string, definition: RecordDefinition, mapping: estypes.MappingTypeMapping | undefined): void {
  const named = [definition.key, ...definition.data, ...definition.vectors];
  for (const property of named) {
    if (!mappedField(mapping, property.storageName)) {
      throw new InvalidInputError(
        'invalid_argument',
        `index "${index}" has no field "${property.storageName}" (property "${property.name}") in its mapping`,
        { connector: CONNECTOR },
      );
    }
  }
  for (const v of definition.vectors) {
    const field = mappedField(mapping, v.storageName) as { type?: string; dims?: number; similarity?: string };
    if (field.type !== 'dense_vector') {
      throw new InvalidInputError('invalid_argument', `index "${index}" maps "${v.storageName}" as ${field.type}, not dense_vector`, {
        connector: CONNECTOR,
      });
    }
    if (field.dims !== undefined && field.dims !== v.dimensions) {
      throw new KmError(
        'vector_size_mismatch',
        `index "${index}" has vector "${v.storageName}" of size ${field.dims}, the definition says ${v.dimensions}`,
        { connector: CONNECTOR },
      );
    }
    const wanted = ELASTICSEARCH_SIMILARITIES[v.distance];
    if ((field.similarity ?? 'cosine') !== wanted) {
      throw new InvalidInputError(
        'invalid_argument',
        `index "${index}" compares "${v.storageName}" by ${field.similarity ?? 'cosine'}, the definition's ${v.distance} needs ${wanted}`,
        { connector: CONNECTOR },
      );
    }
  }
}

/**
 * The mapping of a field by name: the name as one field, else (as Elasticsearch expands a dotted
 * name into objects) the path of its dotted parts through `properties`.
 */
export function mappedField(mapping: estypes.MappingTypeMapping | undefined, name: string): estypes.MappingProperty | undefined {
  const direct = mapping?.properties?.[name];
  if (direct) return direct;
  let properties = mapping?.properties;
  let field: estypes.MappingProperty | undefined;
  for (const part of name.split('.')) {
    field = properties?.[part];
    if (!field) return undefined;
    properties = (field as { properties?: Record<string, estypes.MappingProperty> }).properties;
  }
  return field;
}

/** Shards and replicas of a new index, when configured. */
export function indexSettings(options: ElasticsearchVectorStoreOptions): estypes.IndicesIndexSettings {
  const { numberOfShards: shards, numberOfReplicas: replicas } = options;
  return { ...(shards ? { number_of_shards: shards } : {}), ...(replicas !== undefined ? { number_of_replicas: replicas } : {}) };
}
