import { defineRecord } from '@km/core';

/**
 * The record definition of a hotel: the key, the data properties (which ones filters may name,
 * which one is full-text indexed where the store can) and one vector that the collection fills
 * by embedding `description`. `dimensions` must be the embedding model's.
 *
 * @param {number} dimensions
 */
export function hotelRecord(dimensions) {
  return defineRecord({
    key: 'hotelId',
    data: {
      name: { type: 'string', filterable: true },
      city: { type: 'string', filterable: true },
      rating: { type: 'number', filterable: true },
      pricePerNight: { type: 'integer', filterable: true },
      openedOn: { type: 'date', filterable: true, optional: true },
      description: { type: 'string', fullText: true },
      tags: { type: 'string[]', filterable: true },
    },
    vectors: {
      descriptionEmbedding: { dimensions, distance: 'cosine', embed: 'description' },
    },
  });
}

/** The record type inferred from the definition (for editors and `tsc --checkJs`). @typedef {import('@km/core').RecordType<ReturnType<typeof hotelRecord>>} Hotel */
