import type { DistanceFunction, KeyValue } from '@km/core';
import type { VectorSearchResult } from '@km/collections';
import { expect } from 'vitest';
import { generatedKey } from './record-values.js';
import { seededVectors } from './seeded-random.js';
import { define } from './test-definitions.js';
import { isBetter, oracleRanking, scoreTolerance } from './vector-store-oracle.js';
import { errorCodeOf, type AnyRecord, type VectorStoreCaseContext, type VectorStoreCases } from './vector-store-fixture.js';
import { WordHashEmbeddingGenerator } from './word-hash-embedding-generator.js';

const DISTANCES: readonly DistanceFunction[] = ['cosine', 'dot', 'euclidean'];
const COUNT = 60;
const DIMENSIONS = 8;
const SMALL = 3;

/**
 * 60 seeded records with a vector `a` of 8 dimensions in `distance` and an optional vector `b`
 * of 3 (left out on every fifth record), created and written.
 */
async function seeded(t: VectorStoreCaseContext, distance: DistanceFunction) {
  if (!t.capabilities.distances.includes(distance)) t.skip(`distance ${distance} is not in capabilities.distances`);
  const keyType = t.capabilities.keyTypes[0]!;
  const definition = define({
    key: { name: 'id', type: keyType },
    data: { title: { type: 'string' } },
    vectors: { a: { dimensions: DIMENSIONS, distance }, b: { dimensions: SMALL, distance, optional: true } },
  });
  const a = seededVectors(COUNT, DIMENSIONS, 1 + DISTANCES.indexOf(distance));
  const b = seededVectors(COUNT, SMALL, 100);
  const records: AnyRecord[] = a.map((vector, i) => ({
    id: generatedKey(keyType, i),
    title: `record ${i}`,
    a: vector,
    ...(i % 5 === 0 ? {} : { b: b[i] }),
  }));
  const collection = t.collection(definition);
  await collection.ensureExists();
  await collection.upsert(records);
  const query = seededVectors(1, DIMENSIONS, 999)[0]!;
  const ranking = oracleRanking(
    distance,
    query,
    records.map((r) => [r.id as KeyValue, r.a as Float32Array] as const),
  );
  return { collection, records, query, ranking, definition };
}

/**
 * Results equal `expected` (the oracle's ranking from `from`, `count` long): each score within
 * tolerance of the oracle's score of that record, and each position holding the oracle's record
 * or one tied with it.
 */
export function expectRanking(
  results: ReadonlyArray<VectorSearchResult<AnyRecord>>,
  ranking: ReadonlyArray<{ key: KeyValue; score: number }>,
  from: number,
  count: number,
  keyName = 'id',
): void {
  const expected = ranking.slice(from, from + count);
  const scoreOf = new Map(ranking.map(({ key, score }) => [key, score]));
  expect(
    results.map((r) => r.record[keyName]),
    'result keys (the oracle expects these, ties aside)',
  ).toHaveLength(expected.length);
  results.forEach((result, i) => {
    const key = result.record[keyName] as KeyValue;
    const oracle = scoreOf.get(key);
    expect(oracle, `result ${i} (${String(key)}) is a record the search could return`).toBeDefined();
    expect(Math.abs(result.score - oracle!), `score of ${String(key)}: ${result.score}, oracle ${oracle}`).toBeLessThanOrEqual(
      scoreTolerance(oracle!),
    );
    const want = expected[i]!;
    if (key !== want.key) {
      expect(
        Math.abs(oracle! - want.score),
        `position ${i + from}: got ${String(key)} (oracle ${oracle}), the oracle puts ${String(want.key)} (${want.score}) there`,
      ).toBeLessThanOrEqual(scoreTolerance(want.score));
    }
  });
}

function distanceCases(distance: DistanceFunction): VectorStoreCases {
  return {
    [`${distance}: scores and order equal the oracle's over 60 records of 8 dimensions`]: async (t) => {
      const { collection, query, ranking } = await seeded(t, distance);
      await t.wait(async () => expectRanking(await collection.search(query, { top: COUNT, vectorProperty: 'a' }), ranking, 0, COUNT));
    },

    [`${distance}: top and skip page through the oracle's order; the default top is 3`]: async (t) => {
      const { collection, query, ranking } = await seeded(t, distance);
      await t.wait(async () => expectRanking(await collection.search(query, { top: 5, vectorProperty: 'a' }), ranking, 0, 5));
      expectRanking(await collection.search(query, { top: 5, skip: 5, vectorProperty: 'a' }), ranking, 5, 5);
      expectRanking(await collection.search(query, { top: 7, skip: 55, vectorProperty: 'a' }), ranking, 55, 7);
      expectRanking(await collection.search(query, { top: 3, skip: 60, vectorProperty: 'a' }), ranking, 60, 3);
      expectRanking(await collection.search(query, { vectorProperty: 'a' }), ranking, 0, 3);
    },

    [`${distance}: minScore drops results scoring worse (${distance === 'euclidean' ? 'a maximum distance' : 'a minimum similarity'})`]:
      async (t) => {
        const { collection, query, ranking } = await seeded(t, distance);
        const [tenth, eleventh] = [ranking[9]!.score, ranking[10]!.score];
        // The fixture must leave a gap the stores' rounding cannot cross.
        expect(Math.abs(tenth - eleventh), 'gap between the 10th and 11th oracle scores').toBeGreaterThan(4 * scoreTolerance(tenth));
        const minScore = (tenth + eleventh) / 2;
        await t.wait(async () =>
          expectRanking(await collection.search(query, { top: COUNT, minScore, vectorProperty: 'a' }), ranking, 0, 10),
        );
        // minScore is applied before paging.
        expectRanking(await collection.search(query, { top: COUNT, skip: 4, minScore, vectorProperty: 'a' }), ranking, 4, 6);
        const best = ranking[0]!.score;
        const beyond = isBetter(distance, best + 1, best) ? best + 1 : best - 1;
        expect(await collection.search(query, { top: COUNT, minScore: beyond, vectorProperty: 'a' })).toEqual([]);
      },

    [`${distance}: vectorProperty picks the vector searched; records without it are not found`]: async (t) => {
      const { collection, records } = await seeded(t, distance);
      const query = seededVectors(1, SMALL, 998)[0]!;
      const holders = records.filter((r) => r.b !== undefined);
      const ranking = oracleRanking(
        distance,
        query,
        holders.map((r) => [r.id as KeyValue, r.b as Float32Array] as const),
      );
      await t.wait(async () =>
        expectRanking(await collection.search(query, { top: COUNT, vectorProperty: 'b' }), ranking, 0, holders.length),
      );
    },
  };
}

const firstDistance = (t: VectorStoreCaseContext) => t.capabilities.distances[0]!;

/** Vector and text search against the oracle, for every distance function the store lists. */
export const searchCases: VectorStoreCases = {
  ...Object.assign({}, ...DISTANCES.map(distanceCases)),

  'includeVectors returns the vectors of the results, else none': async (t) => {
    const { collection, query, records } = await seeded(t, firstDistance(t));
    const byKey = new Map(records.map((r) => [r.id, r]));
    await t.wait(async () => {
      const withVectors = await collection.search(query, { top: 5, vectorProperty: 'a', includeVectors: true });
      expect(withVectors).toHaveLength(5);
      for (const { record } of withVectors) {
        const written = byKey.get(record.id)!;
        expect(record.a, `vector a of ${String(record.id)}`).toEqual(Float32Array.from(written.a as Float32Array));
        expect(record.b ?? undefined, `vector b of ${String(record.id)}`).toEqual(
          written.b === undefined ? undefined : Float32Array.from(written.b as Float32Array),
        );
        expect(record.title).toBe(written.title);
      }
    });
    const without = await collection.search(query, { top: 5, vectorProperty: 'a' });
    expect(without).toHaveLength(5);
    for (const { record } of without) {
      expect(record.a ?? undefined, 'vector a without includeVectors').toBeUndefined();
      expect(record.b ?? undefined, 'vector b without includeVectors').toBeUndefined();
      expect(record.title).toBe(byKey.get(record.id)!.title);
    }
  },

  'with several vector properties, a search without vectorProperty is refused with invalid_argument': async (t) => {
    const { collection, query } = await seeded(t, firstDistance(t));
    expect(await errorCodeOf(() => collection.search(query, { top: 3 }))).toBe('invalid_argument');
  },

  'a text query is embedded with the collection generator; records upserted without the vector get it embedded': async (t) => {
    const distance = firstDistance(t);
    const generator = new WordHashEmbeddingGenerator(16);
    const keyType = t.capabilities.keyTypes[0]!;
    const definition = define({
      key: { name: 'id', type: keyType },
      data: { text: { type: 'string' } },
      vectors: { embedding: { dimensions: 16, distance, embed: 'text' } },
    });
    const texts = [
      'harbor lantern at dusk',
      'violet meadow in spring',
      'lantern festival by the old harbor',
      'copper kettle on the stove',
      'quiet harbor with boats',
      'meadow lantern and violet flowers',
      'kettle whistles at dawn',
      'spring rain over the meadow',
    ];
    const records = texts.map((text, i) => ({ id: generatedKey(keyType, i), text }));
    const collection = t.store.getCollection(t.collectionName(), definition, { embeddingGenerator: generator });
    await collection.ensureExists();
    await collection.upsert(records);
    expect(generator.embedded, 'texts embedded for the upsert').toBe(texts.length);
    const query = 'harbor lantern';
    const ranking = oracleRanking(
      distance,
      generator.embed(query),
      records.map((r) => [r.id, generator.embed(r.text)] as const),
    );
    await t.wait(async () => {
      const results = await collection.search(query, { top: texts.length, includeVectors: true });
      expectRanking(results, ranking, 0, texts.length);
      for (const { record } of results) expect(record.embedding).toEqual(generator.embed(record.text as string));
    });
  },
};
