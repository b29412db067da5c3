import type { KeyValue, VectorStoreFilter } from '@km/core';
import { expect } from 'vitest';
import { expectedRecord, generatedRecord, readBack } from './record-values.js';
import { expectRanking } from './search-cases.js';
import { seededVectors } from './seeded-random.js';
import { oracleMatches, oracleRanking } from './vector-store-oracle.js';
import type { AnyRecord, VectorStoreCaseContext, VectorStoreCases } from './vector-store-fixture.js';

const COUNT = 6;
const NO_SCHEMA = 'no existingSchema given to describeVectorStore';

/** The existing table or collection, made natively, and records generated from its definition. */
async function existing(t: VectorStoreCaseContext) {
  const schema = t.options.existingSchema;
  if (!schema) t.skip(NO_SCHEMA);
  const name = t.collectionName();
  await schema.create(name);
  const definition = schema.definition;
  let seed = 0;
  const records = Array.from({ length: COUNT }, (_, i) => generatedRecord(definition, i, (d) => seededVectors(1, d, 50 + seed++)[0]!));
  return { name, definition, records, collection: t.store.getCollection(name, definition) };
}

/** A table or collection the backend's own DDL made, mapped with storage names and its own key type. */
export const existingSchemaCases: VectorStoreCases = {
  'existing schema: it exists and is listed; ensureExists leaves it and its records': async (t) => {
    const { name, collection, records, definition } = await existing(t);
    await t.wait(async () => {
      expect(await collection.exists()).toBe(true);
      expect(await t.store.listCollections()).toContain(name);
    });
    await collection.ensureExists();
    await collection.upsert(records[0]!);
    await collection.ensureExists();
    const key = records[0]![definition.key.name] as KeyValue;
    await t.wait(async () =>
      expect(readBack(definition, await collection.get(key, { includeVectors: true }))).toEqual(
        expectedRecord(definition, records[0]!, true),
      ),
    );
  },

  'existing schema: records round-trip through the mapped names; delete removes them': async (t) => {
    const { collection, records, definition } = await existing(t);
    await collection.ensureExists();
    const keyOf = (r: AnyRecord) => r[definition.key.name] as KeyValue;
    expect(await collection.upsert(records)).toEqual(records.map(keyOf));
    await t.wait(async () => {
      const got = await collection.getMany(records.map(keyOf), { includeVectors: true });
      expect(got.map((r) => readBack(definition, r))).toEqual(records.map((r) => expectedRecord(definition, r, true)));
    });
    await collection.delete([keyOf(records[0]!), keyOf(records[1]!)]);
    await t.wait(async () => expect((await collection.getMany(records.map(keyOf))).map(keyOf)).toEqual(records.slice(2).map(keyOf)));
  },

  'existing schema: search on each vector matches the oracle, and filters on its filterable properties work': async (t) => {
    const { collection, records, definition } = await existing(t);
    await collection.ensureExists();
    await collection.upsert(records);
    const keyOf = (r: AnyRecord) => r[definition.key.name] as KeyValue;
    for (const vector of definition.vectors) {
      const query = seededVectors(1, vector.dimensions, 77)[0]!;
      const ranking = oracleRanking(
        vector.distance,
        query,
        records.map((r) => [keyOf(r), r[vector.name] as Float32Array] as const),
      );
      await t.wait(async () =>
        expectRanking(await collection.search(query, { top: COUNT, vectorProperty: vector.name }), ranking, 0, COUNT, definition.key.name),
      );
    }
    const filters = [{ [definition.key.name]: keyOf(records[2]!) }] as Array<VectorStoreFilter<AnyRecord>>;
    for (const p of definition.data.filter((d) => d.filterable)) {
      const value = records[2]![p.name];
      filters.push((Array.isArray(value) ? { [p.name]: { contains: value[0] } } : { [p.name]: value }) as VectorStoreFilter<AnyRecord>);
    }
    const vectorProperty = definition.vectors[0]!.name;
    for (const filter of filters) {
      const expected = records.filter((r) => oracleMatches(filter, r)).map(keyOf);
      expect(expected.length, `vacuous filter ${JSON.stringify(filter)}`).toBeGreaterThan(0);
      expect(expected.length, `vacuous filter ${JSON.stringify(filter)}`).toBeLessThan(records.length);
      await t.wait(async () => {
        const hits = await collection.search(seededVectors(1, definition.vectors[0]!.dimensions, 78)[0]!, {
          top: COUNT + 1,
          filter,
          vectorProperty,
        });
        expect(hits.map((h) => String(keyOf(h.record))).sort(), JSON.stringify(filter)).toEqual(expected.map(String).sort());
      });
    }
  },
};
