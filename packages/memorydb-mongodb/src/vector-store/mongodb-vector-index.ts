import { InvalidInputError, KmError, type RecordDefinition } from '@km/core';
import type { Document } from 'mongodb';
import type { SearchIndexInfo } from '../search-index.js';
import { KEY_FIELD } from './mongodb-vector-documents.js';
import { SIMILARITIES } from './mongodb-vector-scores.js';

/** The name of the vector search index on each collection (`MongoDbMemoryDb`'s is `km_vector`). */
export const VECTOR_INDEX_NAME = 'kmvs_vector';

/**
 * The `vectorSearch` index of a collection: each vector a `vector` field with the similarity of
 * its distance function, `_id` and each filterable data property a `filter` field (so filters
 * are pre-filters).
 *
 * ```ts
 * vectorIndexDescription(Hotel).definition.fields;
 * // [{ type: 'vector', path: 'embedding', numDimensions: 4, similarity: 'cosine' },
 * //  { type: 'filter', path: '_id' }, { type: 'filter', path: 'rating' }]
 * ```
 */
export function vectorIndexDescription(
  definition: RecordDefinition,
  { name = VECTOR_INDEX_NAME, keyFilterField = true }: { name?: string; keyFilterField?: boolean } = {},
): { name: string; type: 'vectorSearch'; definition: Document } {
  return {
    name,
    type: 'vectorSearch',
    definition: {
      fields: [
        ...definition.vectors.map((v) => ({
          type: 'vector',
          path: v.storageName,
          numDimensions: v.dimensions,
          similarity: SIMILARITIES[v.distance],
        })),
        ...(keyFilterField ? [{ type: 'filter', path: KEY_FIELD }] : []),
        ...definition.data.filter((d) => d.filterable).map((d) => ({ type: 'filter', path: d.storageName })),
      ],
    },
  };
}

/**
 * Checks that an existing search index (your own, or one made earlier) has every vector of the
 * definition with its dimensions and similarity, and every filterable property as a filter
 * field; throws `invalid_argument` naming the first that is missing or different, and
 * `vector_size_mismatch` for a vector declared with other dimensions only.
 */
export function checkVectorIndex(collection: string, definition: RecordDefinition, info: SearchIndexInfo): void {
  const fields = (info.latestDefinition?.fields ?? []) as Array<{
    type?: string;
    path?: string;
    numDimensions?: number;
    similarity?: string;
  }>;
  const refuse = (what: string) => {
    throw new InvalidInputError('invalid_argument', `search index "${info.name ?? VECTOR_INDEX_NAME}" on "${collection}" ${what}`, {
      connector: 'mongodb',
    });
  };
  for (const vector of definition.vectors) {
    const field = fields.find((f) => f.type === 'vector' && f.path === vector.storageName);
    if (!field) refuse(`has no vector field "${vector.storageName}" (property "${vector.name}")`);
    if (field!.numDimensions !== vector.dimensions && field!.similarity === SIMILARITIES[vector.distance]) {
      throw new KmError(
        'vector_size_mismatch',
        `search index "${info.name ?? VECTOR_INDEX_NAME}" on "${collection}" declares "${vector.storageName}" with ${field!.numDimensions} dimensions, the definition ${vector.dimensions}`,
        { connector: 'mongodb' },
      );
    }
    if (field!.numDimensions !== vector.dimensions || field!.similarity !== SIMILARITIES[vector.distance]) {
      refuse(
        `declares "${vector.storageName}" with ${field!.numDimensions} dimensions and ${field!.similarity}, the definition ${vector.dimensions} and ${SIMILARITIES[vector.distance]}`,
      );
    }
  }
  for (const property of definition.data.filter((d) => d.filterable)) {
    if (!fields.some((f) => f.type === 'filter' && f.path === property.storageName)) {
      refuse(`has no filter field "${property.storageName}" (property "${property.name}")`);
    }
  }
}

/** The dimensions of the vector field at `path` in a listed search index, or undefined when it has none. */
export function declaredDimensions(info: SearchIndexInfo, path: string): number | undefined {
  const field = info.latestDefinition?.fields?.find((f) => f.type === 'vector' && f.path === path);
  return typeof field?.numDimensions === 'number' ? field.numDimensions : undefined;
}
