import { InvalidInputError, KmError, type DataPropertyType, type DistanceFunction, type RecordDefinition } from '@km/core';
import type { ResolvedVectorProperty } from '@km/core/connector';
import type { Schemas } from '@qdrant/js-client-rest';
import { payloadPath } from './qdrant-payload-path.js';
import { VECTOR_COPIES_FIELD } from './qdrant-vector-points.js';
import type { QdrantPointLayout } from './qdrant-vector-store-options.js';

const CONNECTOR = 'qdrant';

/** Qdrant's distance of each km distance function; Qdrant scores with the same convention (Euclid: the distance). */
export const QDRANT_DISTANCES: Readonly<Record<DistanceFunction, Schemas['Distance']>> = {
  cosine: 'Cosine',
  dot: 'Dot',
  euclidean: 'Euclid',
};

/** The payload index of each data type (arrays are indexed element by element). */
export const QDRANT_PAYLOAD_SCHEMAS: Readonly<Record<DataPropertyType, Schemas['PayloadSchemaType']>> = {
  string: 'keyword',
  'string[]': 'keyword',
  number: 'float',
  'number[]': 'float',
  integer: 'integer',
  boolean: 'bool',
  date: 'datetime',
};

/**
 * The vectors of a new collection: one named vector per vector property, under its storage name;
 * or the one unnamed vector of `layout.unnamedVector`.
 */
export function vectorsConfig(
  definition: RecordDefinition,
  layout: QdrantPointLayout = {},
): Record<string, Schemas['VectorParams']> | Schemas['VectorParams'] {
  checkReservedNames(definition);
  const unnamed = unnamedProperty(definition, layout);
  if (unnamed) return { size: unnamed.dimensions, distance: QDRANT_DISTANCES[unnamed.distance] };
  return Object.fromEntries(definition.vectors.map((v) => [v.storageName, { size: v.dimensions, distance: QDRANT_DISTANCES[v.distance] }]));
}

/**
 * The payload indexes of a new collection: one per filterable data property, and one on the
 * payload copy of an integer key (read by range filters on the key), named by {@link payloadPath}.
 */
export function payloadIndexes(definition: RecordDefinition): Array<{ field_name: string; field_schema: Schemas['PayloadSchemaType'] }> {
  const indexes = definition.data
    .filter((p) => p.filterable)
    .map((p) => ({ field_name: payloadPath(p.storageName), field_schema: QDRANT_PAYLOAD_SCHEMAS[p.type] }));
  if (definition.key.type === 'integer') indexes.push({ field_name: payloadPath(definition.key.storageName), field_schema: 'integer' });
  return indexes;
}

/**
 * Checks an existing collection against a definition: every vector property must be a named
 * vector of the same size and distance (payload fields need no declaration in Qdrant).
 * Throws `invalid_argument` naming the first vector that is missing or measured otherwise, and
 * `vector_size_mismatch` for a size.
 */
export function checkExistingCollection(
  collection: string,
  definition: RecordDefinition,
  vectors: unknown,
  layout: QdrantPointLayout = {},
): void {
  checkReservedNames(definition);
  const unnamed = unnamedProperty(definition, layout);
  if (unnamed) {
    const params = vectors as { size?: unknown; distance?: unknown } | null;
    if (params === null || typeof params !== 'object' || !('size' in params)) throw namedVectors(collection);
    if (params.size !== unnamed.dimensions) {
      throw new KmError(
        'vector_size_mismatch',
        `collection "${collection}" has vector size ${String(params.size)}, the definition says ${unnamed.dimensions}`,
        {
          connector: CONNECTOR,
        },
      );
    }
    if (params.distance !== QDRANT_DISTANCES[unnamed.distance]) {
      throw new InvalidInputError(
        'invalid_argument',
        `collection "${collection}" measures its vector with ${String(params.distance)}, the definition says ${unnamed.distance} (${QDRANT_DISTANCES[unnamed.distance]})`,
        { connector: CONNECTOR },
      );
    }
    return;
  }
  const named = vectors !== null && typeof vectors === 'object' && !('size' in vectors) ? (vectors as Record<string, unknown>) : undefined;
  for (const property of definition.vectors) {
    const params = named?.[property.storageName] as { size?: unknown; distance?: unknown } | undefined;
    if (!params) {
      const found = named
        ? `it has ${
            Object.keys(named)
              .map((n) => `"${n}"`)
              .join(', ') || 'none'
          }`
        : 'it has one unnamed vector';
      throw new InvalidInputError(
        'invalid_argument',
        `collection "${collection}" has no named vector "${property.storageName}" (property "${property.name}"): ${found}`,
        { connector: CONNECTOR },
      );
    }
    if (params.size !== property.dimensions) {
      throw new KmError(
        'vector_size_mismatch',
        `collection "${collection}" has vector "${property.storageName}" of size ${String(params.size)}, the definition says ${property.dimensions}`,
        { connector: CONNECTOR },
      );
    }
    if (params.distance !== QDRANT_DISTANCES[property.distance]) {
      throw new InvalidInputError(
        'invalid_argument',
        `collection "${collection}" measures vector "${property.storageName}" with ${String(params.distance)}, the definition says ${property.distance} (${QDRANT_DISTANCES[property.distance]})`,
        { connector: CONNECTOR },
      );
    }
  }
}

function checkReservedNames(definition: RecordDefinition): void {
  const names = [definition.key.storageName, ...definition.data.map((p) => p.storageName)];
  if (names.includes(VECTOR_COPIES_FIELD)) {
    throw new InvalidInputError(
      'invalid_argument',
      `the payload field "${VECTOR_COPIES_FIELD}" is reserved by km (copies of cosine vectors)`,
      {
        connector: CONNECTOR,
      },
    );
  }
}

/** The vector property kept as the unnamed vector, if the layout has one and the definition holds it (then as its only vector). */
export function unnamedProperty(definition: RecordDefinition, layout: QdrantPointLayout): ResolvedVectorProperty | undefined {
  if (layout.unnamedVector === undefined) return undefined;
  const property = definition.vectors.find((v) => v.storageName === layout.unnamedVector);
  if (property && definition.vectors.length > 1) {
    throw new InvalidInputError(
      'invalid_argument',
      `the vector "${property.storageName}" is a collection's unnamed vector, which leaves no room for others`,
      { connector: CONNECTOR },
    );
  }
  return property;
}

/** A collection with named vectors where the layout wants one unnamed vector (km 0.x's message). */
export function namedVectors(collection: string): KmError {
  return new KmError('invalid_argument', `collection "${collection}" has named vectors; km needs one unnamed cosine vector`, {
    connector: CONNECTOR,
  });
}
