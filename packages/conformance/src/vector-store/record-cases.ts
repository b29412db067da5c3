import type { KeyType, KeyValue } from '@km/core';
import { expect } from 'vitest';
import { expectedRecord, readBack, ROUND_TRIP_KEYS } from './record-values.js';
import { everyTypeDefinition, everyTypeRecords, smallDefinition, smallRecord } from './test-definitions.js';
import { errorCodeOf, type AnyRecord, type VectorStoreCaseContext, type VectorStoreCases } from './vector-store-fixture.js';

const KEY_TYPES: readonly KeyType[] = ['string', 'integer', 'uuid'];
const keyOf = (record: Record<string, unknown>) => record.id as KeyValue;

async function roundTrip(t: VectorStoreCaseContext, keyType: KeyType): Promise<void> {
  if (!t.capabilities.keyTypes.includes(keyType)) t.skip(`key type ${keyType} is not in capabilities.keyTypes`);
  const definition = everyTypeDefinition(t.capabilities, keyType);
  const records = everyTypeRecords(definition);
  const collection = t.collection(definition);
  await collection.ensureExists();
  expect(await collection.upsert(records)).toEqual(records.map(keyOf));
  for (const includeVectors of [false, true]) {
    await t.wait(async () => {
      const many = await collection.getMany(records.map(keyOf), { includeVectors });
      expect(many.map((r) => readBack(definition, r))).toEqual(records.map((r) => expectedRecord(definition, r, includeVectors)));
    });
    for (const record of records) {
      const one = readBack(definition, await collection.get(keyOf(record), { includeVectors }));
      expect(one, `get(${JSON.stringify(keyOf(record))}, { includeVectors: ${includeVectors} })`).toEqual(
        expectedRecord(definition, record, includeVectors),
      );
    }
  }
}

/** Upsert, get and delete by key: every data type, every key type, values exactly as written. */
export const recordCases: VectorStoreCases = {
  ...Object.fromEntries(
    KEY_TYPES.map((keyType) => [
      `every data type round-trips exactly with ${keyType} keys, with and without vectors (get and getMany)`,
      (t: VectorStoreCaseContext) => roundTrip(t, keyType),
    ]),
  ),

  'uuid keys are stored in lower case, whatever case they are given in': async (t) => {
    if (!t.capabilities.keyTypes.includes('uuid')) t.skip('key type uuid is not in capabilities.keyTypes');
    const definition = everyTypeDefinition(t.capabilities, 'uuid');
    const [record] = everyTypeRecords(definition);
    const upper = String(ROUND_TRIP_KEYS.uuid[1]).toUpperCase();
    const collection = t.collection(definition);
    await collection.ensureExists();
    expect(await collection.upsert({ ...record!, id: upper })).toBe(upper.toLowerCase());
    await t.wait(async () => expect((await collection.get(upper.toLowerCase()))?.id).toBe(upper.toLowerCase()));
    expect((await collection.get(upper))?.id).toBe(upper.toLowerCase());
  },

  'upsert of one record returns its key; of many, their keys in order': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    await collection.ensureExists();
    const one = smallRecord(definition, 7);
    expect(await collection.upsert(one)).toBe(one.id);
    const many = [3, 1, 2].map((i) => smallRecord(definition, i));
    expect(await collection.upsert(many)).toEqual(many.map(keyOf));
    expect(await collection.upsert([])).toEqual([]);
  },

  'upsert replaces a record by key, keeping nothing of the old one': async (t) => {
    const keyType = t.capabilities.keyTypes[0]!;
    const definition = everyTypeDefinition(t.capabilities, keyType);
    // The first holds every optional value; the replacement leaves them out, so none may survive.
    const [second, first] = everyTypeRecords(definition).slice(1, 3);
    const replacement: AnyRecord = { ...second!, id: first!.id };
    for (const optional of definition.data.filter((p) => p.optional)) delete replacement[optional.name];
    const collection = t.collection(definition);
    await collection.ensureExists();
    await collection.upsert(first!);
    await collection.upsert(replacement);
    await t.wait(async () =>
      expect(readBack(definition, await collection.get(keyOf(first!), { includeVectors: true }))).toEqual(
        expectedRecord(definition, replacement, true),
      ),
    );
    const hits = await collection.search(Array.from(replacement.embedding as Float32Array), { top: 10 });
    expect(hits.map((h) => h.record.id)).toEqual([first!.id]);
  },

  'a batch holding one key twice keeps the last': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    await collection.ensureExists();
    const a = smallRecord(definition, 1);
    const b: AnyRecord = { ...smallRecord(definition, 2), id: a.id };
    await collection.upsert([a, b]);
    await t.wait(async () => expect((await collection.get(keyOf(a)))?.title).toBe(b.title));
  },

  'get of a missing key is undefined; getMany keeps the order of the keys and skips missing ones': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    await collection.ensureExists();
    const records = [1, 2, 3, 4].map((i) => smallRecord(definition, i));
    await collection.upsert(records);
    const missing = smallRecord(definition, 99).id as KeyValue;
    await t.wait(async () => {
      const got = await collection.getMany([keyOf(records[3]!), missing, keyOf(records[0]!), keyOf(records[2]!)]);
      expect(got.map(keyOf)).toEqual([records[3]!.id, records[0]!.id, records[2]!.id]);
    });
    expect(await collection.get(missing)).toBeUndefined();
    expect(await collection.getMany([])).toEqual([]);
  },

  'vectors given as number[] read back as Float32Array, rounded to float32': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    await collection.ensureExists();
    const vector = [0.1, -1 / 3, 1e-5, 12345.678];
    await collection.upsert({ ...smallRecord(definition, 1), embedding: vector });
    await t.wait(async () => {
      const got = await collection.get(smallRecord(definition, 1).id as KeyValue, { includeVectors: true });
      expect(got?.embedding).toEqual(Float32Array.from(vector));
    });
  },

  'delete removes one key, then several; missing keys are ignored': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    await collection.ensureExists();
    const records = [1, 2, 3, 4, 5].map((i) => smallRecord(definition, i));
    const keys = records.map(keyOf);
    await collection.upsert(records);
    await collection.delete(keys[0]!);
    await collection.delete([keys[2]!, keys[3]!, smallRecord(definition, 99).id as KeyValue]);
    await collection.delete(smallRecord(definition, 98).id as KeyValue);
    await collection.delete([]);
    await t.wait(async () => expect((await collection.getMany(keys)).map(keyOf)).toEqual([keys[1], keys[4]]));
    await t.wait(async () =>
      expect((await collection.search([1, 1, 1, 1], { top: 10 })).map((h) => h.record.id).sort()).toEqual([keys[1], keys[4]].sort()),
    );
  },

  'a record with an unknown property, or without a required one, is refused with invalid_argument and nothing is written': async (t) => {
    const definition = smallDefinition(t.capabilities);
    const collection = t.collection(definition);
    await collection.ensureExists();
    const good = smallRecord(definition, 1);
    expect(await errorCodeOf(() => collection.upsert([good, { ...smallRecord(definition, 2), extra: 'x' }]))).toBe('invalid_argument');
    const { title: _, ...untitled } = smallRecord(definition, 3);
    expect(await errorCodeOf(() => collection.upsert(untitled))).toBe('invalid_argument');
    expect(await collection.get(keyOf(good))).toBeUndefined();
  },
};
