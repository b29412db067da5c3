import type { KeyValue } from '@km/core';
import { expect } from 'vitest';
import { generatedKey } from './record-values.js';
import { define, smallDefinition, smallRecord } from './test-definitions.js';
import { errorCodeOf, type VectorStoreCases } from './vector-store-fixture.js';

/** Collection names outside `[A-Za-z0-9][A-Za-z0-9_-]{0,127}`, most of them built to inject. */
export const BAD_COLLECTION_NAMES: readonly string[] = [
  "x'; DROP TABLE y; --",
  'a"b',
  'semi;colon',
  'a b',
  'a.b',
  '../up',
  '$where',
  'ünï',
  '',
  '-leading-dash',
  'x'.repeat(129),
];

/** Storage names a definition may give, which a store must quote or refuse with invalid_argument. */
export const HOSTILE_STORAGE_NAMES: readonly string[] = [
  "x'; DROP TABLE y; --",
  'a"b',
  '$where',
  'a.b',
  'a b',
  'back\\slash',
  'select',
  'Ünï 🚀',
];

/** Injection attempts through collection names and storage names (filter values are in the filter cases). */
export const injectionCases: VectorStoreCases = {
  'injection strings as collection names are refused with invalid_argument, and the store is unharmed': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const keep = t.collection(definition);
    await keep.ensureExists();
    const record = smallRecord(definition, 1);
    await keep.upsert(record);
    for (const bad of BAD_COLLECTION_NAMES) {
      const label = JSON.stringify(bad.length > 20 ? `${bad.slice(0, 20)}…` : bad);
      expect(await errorCodeOf(() => t.store.getCollection(bad, definition).ensureExists()), `ensureExists ${label}`).toBe(
        'invalid_argument',
      );
      expect(await errorCodeOf(() => t.store.getCollection(bad, definition).upsert(record)), `upsert ${label}`).toBe('invalid_argument');
      expect(await errorCodeOf(() => t.store.collectionExists(bad)), `collectionExists ${label}`).toBe('invalid_argument');
      expect(await errorCodeOf(() => t.store.deleteCollection(bad)), `deleteCollection ${label}`).toBe('invalid_argument');
    }
    await t.wait(async () => {
      expect(await keep.exists()).toBe(true);
      expect(await keep.get(record.id as KeyValue)).toMatchObject({ id: record.id, title: record.title });
      const names = await t.store.listCollections();
      expect(names).toContain(keep.name);
      for (const bad of BAD_COLLECTION_NAMES) expect(names).not.toContain(bad);
    });
  },

  'hostile storage names in a definition are quoted by the store, or refused with invalid_argument': async (t) => {
    const outcomes: string[] = [];
    const keyType = t.capabilities.keyTypes.includes('string') ? 'string' : t.capabilities.keyTypes[0]!;
    for (const storageName of HOSTILE_STORAGE_NAMES) {
      const rows = [0, 1, 2].map((i) => ({
        id: generatedKey(keyType, i),
        value: `${storageName} ${i % 2}`,
        other: `o${i}`,
        embedding: Float32Array.from([1, i, 0.5, 0.25]),
      }));
      const code = await errorCodeOf(async () => {
        const definition = define({
          key: { name: 'id', type: keyType },
          data: { value: { type: 'string', filterable: true, storageName }, other: { type: 'string', filterable: true } },
          vectors: { embedding: { dimensions: 4, distance: t.capabilities.distances[0]!, storageName: `${storageName}_v` } },
        });
        const collection = t.collection(definition);
        await collection.ensureExists();
        await collection.upsert(rows);
        await t.wait(async () => {
          const got = await collection.getMany(rows.map((r) => r.id as KeyValue));
          expect(got.map((r) => [r.id, r.value, r.other])).toEqual(rows.map((r) => [r.id, r.value, r.other]));
          const hits = await collection.search([1, 1, 1, 1], { top: 5, filter: { value: `${storageName} 1` } });
          expect(hits.map((h) => h.record.id)).toEqual([rows[1]!.id]);
        });
      });
      expect(['no error', 'invalid_argument'], `storage name ${JSON.stringify(storageName)}`).toContain(code);
      outcomes.push(code);
    }
    // A store refusing every name would pass vacuously: a reserved SQL word is a name every backend can hold.
    expect(outcomes[HOSTILE_STORAGE_NAMES.indexOf('select')], 'the storage name "select"').toBe('no error');
  },
};
