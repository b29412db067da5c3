import { defineRecord } from '@km/core';

/** A definition with every data type, a storage name of its own, and vectors of each distance. */
export const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string', filterable: true, fullText: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true, optional: true },
    rooms: { type: 'integer', filterable: true, optional: true },
    pets: { type: 'boolean', filterable: true, optional: true },
    opened: { type: 'date', filterable: true, optional: true },
    tags: { type: 'string[]', filterable: true, optional: true },
    floors: { type: 'number[]', filterable: true, optional: true },
    description: { type: 'string', optional: true },
  },
  vectors: {
    embedding: { dimensions: 3 },
    dotVector: { dimensions: 2, distance: 'dot', optional: true },
    l2Vector: { dimensions: 2, distance: 'euclidean', optional: true },
  },
});

/** A definition with an integer key stored under another name. */
export const Counter = defineRecord({
  key: { name: 'id', type: 'integer', storageName: 'counter_id' },
  data: { label: { type: 'string', filterable: true } },
  vectors: { v: { dimensions: 2, distance: 'euclidean' } },
});

/** A property of a definition by name. */
export function property(definition: typeof Hotel | typeof Counter, name: string) {
  const found = [definition.key, ...definition.data].find((p) => p.name === name);
  if (!found) throw new Error(`no property ${name}`);
  return found as never;
}
