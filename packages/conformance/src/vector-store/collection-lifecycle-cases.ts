import { expect } from 'vitest';
import { smallDefinition, smallRecord } from './test-definitions.js';
import { errorCodeOf, type VectorStoreCases } from './vector-store-fixture.js';

/** Collections: create, list, delete, idempotence, and what a missing collection does. */
export const collectionLifecycleCases: VectorStoreCases = {
  'a collection not created does not exist; ensureExists twice creates it; it is listed': async (t) => {
    const collection = t.collection(smallDefinition(t.capabilities));
    expect(await collection.exists()).toBe(false);
    expect(await t.store.collectionExists(collection.name)).toBe(false);
    expect(await t.store.listCollections()).not.toContain(collection.name);
    await collection.ensureExists();
    await collection.ensureExists();
    await t.wait(async () => {
      expect(await collection.exists()).toBe(true);
      expect(await t.store.collectionExists(collection.name)).toBe(true);
      expect((await t.store.listCollections()).filter((n) => n === collection.name)).toEqual([collection.name]);
    });
  },

  'ensureExists on an existing collection keeps its records': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    await collection.ensureExists();
    await collection.upsert(smallRecord(definition, 1));
    await collection.ensureExists();
    await t.wait(async () => expect(await collection.get(smallRecord(definition, 1).id as string)).toBeDefined());
  },

  'ensureDeleted twice, and deleteCollection of a missing one, are no-ops; the records go with the collection': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    const other = t.collection(definition);
    await collection.ensureDeleted();
    await t.store.deleteCollection(collection.name);
    await collection.ensureExists();
    await other.ensureExists();
    await collection.upsert(smallRecord(definition, 1));
    await collection.ensureDeleted();
    await collection.ensureDeleted();
    await t.wait(async () => {
      expect(await collection.exists()).toBe(false);
      expect(await t.store.listCollections()).not.toContain(collection.name);
      expect(await t.store.listCollections()).toContain(other.name);
    });
    await collection.ensureExists();
    await t.wait(async () => expect(await collection.exists()).toBe(true));
    expect(await collection.get(smallRecord(definition, 1).id as string)).toBeUndefined();
    await t.store.deleteCollection(collection.name);
    await t.wait(async () => expect(await t.store.collectionExists(collection.name)).toBe(false));
    expect(await other.exists()).toBe(true);
  },

  'writes to a missing collection throw collection_not_found and create nothing': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    expect(await errorCodeOf(() => collection.upsert(smallRecord(definition, 1)))).toBe('collection_not_found');
    expect(await errorCodeOf(() => collection.upsert([smallRecord(definition, 1), smallRecord(definition, 2)]))).toBe(
      'collection_not_found',
    );
    expect(await collection.exists()).toBe(false);
  },

  'reads of a missing collection return nothing': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    const key = smallRecord(definition, 1).id as string;
    expect(await collection.get(key)).toBeUndefined();
    expect(await collection.getMany([key])).toEqual([]);
    expect(await collection.search([1, 0, 0, 0], { top: 5 })).toEqual([]);
    expect(await collection.exists()).toBe(false);
  },
};
