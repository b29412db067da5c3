import type { PGlite } from '@electric-sql/pglite';
import { defineRecord, isKmError, type RecordDefinition } from '@km/core';
import { VectorStore } from '@km/collections';
import { compileFilter, matchesFilter, vectorScore, type StorageRecord } from '@km/core/connector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterToSql, PostgresVectorStoreDriver } from '../src/index.js';
import { CollectionStatements } from '../src/vector-store/collection-statements.js';
import { freshPglite } from './fresh-pglite.js';

// The driver alone (no core wrapper) on PGlite in process: SQL semantics against the reference
// evaluator, existing tables, hostile names and values, batching, missing tables.
let db: PGlite;
let driver: PostgresVectorStoreDriver;
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
beforeAll(async () => {
  db = await freshPglite();
  driver = new PostgresVectorStoreDriver({ pglite: db, logger: quiet });
});
afterAll(async () => {
  await driver.close();
  await db.close();
});

const codeOf = async (promise: Promise<unknown>): Promise<[string | undefined, string]> => {
  try {
    await promise;
    return [undefined, ''];
  } catch (e) {
    return [isKmError(e) ? e.code : 'raw', (e as Error).message];
  }
};

const HOSTILE = `x"; DROP TABLE hotels; --`;
const Hotel = defineRecord({
  key: 'id',
  data: {
    city: { type: 'string', filterable: true, optional: true },
    rating: { type: 'number', filterable: true, optional: true },
    rooms: { type: 'integer', filterable: true, optional: true },
    open: { type: 'boolean', filterable: true, optional: true },
    since: { type: 'date', filterable: true, optional: true },
    tags: { type: 'string[]', filterable: true, optional: true },
    sizes: { type: 'number[]', filterable: true, optional: true },
    odd: { type: 'string', filterable: true, optional: true, storageName: HOSTILE },
  },
  vectors: { embedding: { dimensions: 3 } },
});
const d = (iso: string) => new Date(iso);
const SEED: StorageRecord[] = [
  {
    id: 'a',
    city: 'Paris',
    rating: 4.5,
    rooms: 10,
    open: true,
    since: d('2020-01-01T00:00:00Z'),
    tags: ['pool', 'spa'],
    sizes: [1, 2],
    [HOSTILE]: "it's",
  },
  {
    id: 'b',
    city: 'Rome',
    rating: 3,
    rooms: 200,
    open: false,
    since: d('2024-06-01T12:00:00Z'),
    tags: ['gym'],
    sizes: [3],
    [HOSTILE]: 'plain',
  },
  { id: 'c', city: null, rating: null, rooms: null, open: null, since: null, tags: null, sizes: null, [HOSTILE]: null },
  {
    id: 'd',
    city: "O'Brien's; DROP TABLE x; --",
    rating: 5,
    rooms: 0,
    open: true,
    since: d('2026-11-27T00:00:00Z'),
    tags: [],
    sizes: [2.5],
    [HOSTILE]: null,
  },
].map((r, i) => ({ ...r, embedding: Float32Array.from([1, i, 0.5]) }));

describe('PostgresVectorStoreDriver filters on PostgreSQL', () => {
  beforeAll(async () => {
    await driver.createCollection('filtered', Hotel);
    await driver.upsert('filtered', Hotel, SEED);
  });

  const filters: Array<Record<string, unknown>> = [
    { city: 'Paris' },
    { city: { ne: 'Paris' } },
    { rating: { gt: 3 } },
    { rating: { gte: 3 } },
    { rating: { lt: 5 } },
    { rating: { lte: 3 } },
    { rooms: { in: [0, 200] } },
    { rooms: { in: [] } },
    { open: false },
    { open: { ne: true } },
    { since: { gte: '2024-01-01T00:00:00Z' } },
    { since: { lt: d('2024-06-01T12:00:00Z') } },
    { tags: { contains: 'pool' } },
    { sizes: { contains: 2.5 } },
    { not: { tags: { contains: 'pool' } } },
    { not: { rating: { gt: 4 } } },
    { or: [{ city: 'Rome' }, { rating: { gte: 5 } }] },
    { or: [] },
    { and: [] },
    { city: "O'Brien's; DROP TABLE x; --" },
    { odd: "it's" },
    { odd: { ne: 'plain' } },
    { id: { in: ['a', 'c'] } },
    { not: { or: [{ city: 'Paris' }, { open: true }] } },
  ];

  it.each(filters.map((f) => [JSON.stringify(f), f] as const))('%s matches what the reference evaluator matches', async (_, filter) => {
    const node = compileFilter(Hotel, filter);
    const expected = SEED.filter((r) => (node ? matchesFilter(node, r) : true)).map((r) => r.id);
    const found = await driver.search('filtered', Hotel, {
      vectorProperty: Hotel.vectors[0]!,
      vector: Float32Array.from([1, 0, 0]),
      limit: 10,
      filter: node,
      includeVectors: false,
    });
    expect(found.map(([r]) => r.id).sort()).toEqual(expected.sort());
  });

  it('the hostile values and storage name left the table intact', async () => {
    expect(await driver.collectionExists('filtered')).toBe(true);
    const rows = await driver.get('filtered', Hotel, ['a', 'b', 'c', 'd'], true);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get('a')).toEqual(SEED[0]);
    expect(byId.get('c')).toEqual(SEED[2]);
    expect(byId.get('d')![HOSTILE]).toBeNull();
  });
});

describe('PostgresVectorStoreDriver scores, keys and batches', () => {
  it('reports cosine similarity, dot product and L2 distance, best first, and leaves out records without the vector', async () => {
    const Multi = defineRecord({
      key: 'id',
      vectors: {
        cos: { dimensions: 2, optional: true },
        dot: { dimensions: 2, distance: 'dot' },
        l2: { dimensions: 2, distance: 'euclidean' },
      },
    });
    await driver.createCollection('scores', Multi);
    const records = [
      { id: 'x', cos: Float32Array.from([1, 0]), dot: Float32Array.from([2, 1]), l2: Float32Array.from([0, 0]) },
      { id: 'y', cos: Float32Array.from([1, 1]), dot: Float32Array.from([1, 2]), l2: Float32Array.from([3, 4]) },
      { id: 'z', cos: null, dot: Float32Array.from([-1, 0]), l2: Float32Array.from([1, 1]) },
    ];
    await driver.upsert('scores', Multi, records);
    const q = Float32Array.from([1, 0.5]);
    for (const property of Multi.vectors) {
      const hits = await driver.search('scores', Multi, {
        vectorProperty: property,
        vector: q,
        limit: 10,
        filter: undefined,
        includeVectors: false,
      });
      const expected = records
        .filter((r) => r[property.name as 'cos'] !== null)
        .map((r) => [r.id, vectorScore(property.distance, r[property.name as 'cos']!, q)] as const)
        .sort((a, b) => (property.distance === 'euclidean' ? a[1] - b[1] : b[1] - a[1]));
      expect(
        hits.map(([r]) => r.id),
        property.name,
      ).toEqual(expected.map(([id]) => id));
      hits.forEach(([, score], i) => expect(score).toBeCloseTo(expected[i]![1], 5));
    }
  });

  it('each distance is served by its HNSW index (the operator class matches the ORDER BY operator)', async () => {
    const Indexed = defineRecord({
      key: 'id',
      data: { city: { type: 'string', filterable: true } },
      vectors: {
        cos: { dimensions: 4 },
        dot: { dimensions: 4, distance: 'dot' },
        l2: { dimensions: 4, distance: 'euclidean' },
      },
    });
    await driver.createCollection('indexed', Indexed);
    const statements = new CollectionStatements('public', 'indexed', Indexed);
    const where = filterToSql(compileFilter(Indexed, { city: 'Paris' }), 3);
    await db.transaction(async (tx) => {
      await tx.exec('SET LOCAL enable_seqscan = off');
      for (const property of Indexed.vectors) {
        const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statements.search(property, where.sql, false)}`, [
          '[1,0,0,0]',
          5,
          ...where.params,
        ]);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, property.name).toMatch(/Index Scan using km_[0-9a-f]{16}_hnsw/);
      }
    });
  });

  it('query orders by a property with missing values last either way, strings by code point, ties by key', async () => {
    const Named = defineRecord({
      key: 'id',
      data: { name: { type: 'string', optional: true }, rank: { type: 'integer', optional: true, filterable: true } },
      vectors: { v: { dimensions: 2 } },
    });
    await driver.createCollection('ordered', Named);
    const v = Float32Array.from([1, 0]);
    await driver.upsert('ordered', Named, [
      { id: 'k1', name: 'a', rank: 2, v },
      { id: 'k2', name: null, rank: 1, v },
      { id: 'k3', name: 'B', rank: null, v },
      { id: 'k4', name: 'é', rank: 2, v },
      { id: 'k0', name: 'z', rank: 2, v },
    ]);
    const ids = async (storageName: string, descending: boolean) =>
      (
        await driver.query('ordered', Named, {
          filter: undefined,
          orderBy: [{ storageName, descending }],
          limit: 10,
          includeVectors: false,
        })
      ).map((r) => r.id);
    expect(await ids('name', false)).toEqual(['k3', 'k1', 'k0', 'k4', 'k2']);
    expect(await ids('name', true)).toEqual(['k4', 'k0', 'k1', 'k3', 'k2']);
    expect(await ids('rank', true)).toEqual(['k0', 'k1', 'k4', 'k2', 'k3']);
    const filtered = await driver.query('ordered', Named, {
      filter: compileFilter(Named, { rank: { ne: 2 } }),
      orderBy: [],
      limit: 1,
      includeVectors: false,
    });
    expect(filtered.map((r) => r.id)).toEqual(['k2']);
  });

  it('integer and uuid keys come back as they went in', async () => {
    const Numbered = defineRecord({
      key: { name: 'n', type: 'integer' },
      data: { big: { type: 'integer' } },
      vectors: { v: { dimensions: 2 } },
    });
    await driver.createCollection('numbered', Numbered);
    await driver.upsert('numbered', Numbered, [{ n: 9007199254740991, big: -42, v: Float32Array.from([1, 2]) }]);
    expect(await driver.get('numbered', Numbered, [9007199254740991], true)).toEqual([
      { n: 9007199254740991, big: -42, v: Float32Array.from([1, 2]) },
    ]);
    const Ids = defineRecord({ key: { name: 'u', type: 'uuid' }, vectors: { v: { dimensions: 2 } } });
    await driver.createCollection('uuids', Ids);
    const u = '0f8fad5b-d9cb-469f-a165-70867728950e';
    await driver.upsert('uuids', Ids, [{ u, v: Float32Array.from([1, 2]) }]);
    expect(await driver.get('uuids', Ids, [u], false)).toEqual([{ u }]);
    await driver.delete('uuids', Ids, [u]);
    expect(await driver.get('uuids', Ids, [u], false)).toEqual([]);
  });

  it('splits an upsert over the 65535-parameter limit and the batch size, and replaces existing keys', async () => {
    // 42 parameters per record (key, 40 integers, a vector): one statement takes at most 1560 records.
    const data = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${i}`, { type: 'integer' as const }]));
    const Wide = defineRecord({ key: 'id', data, vectors: { v: { dimensions: 1 } } });
    const unindexed = new PostgresVectorStoreDriver({ pglite: db, createVectorIndex: false, batchSize: 10_000, logger: quiet });
    await unindexed.createCollection('many', Wide);
    const record = (i: number, base: number) => ({
      id: `r${i}`,
      ...Object.fromEntries(Object.keys(data).map((k) => [k, base + i])),
      v: Float32Array.from([i + 1]),
    });
    await unindexed.upsert(
      'many',
      Wide,
      Array.from({ length: 2000 }, (_, i) => record(i, 0)),
    );
    const count = async () => (await db.query<{ count: number }>('SELECT count(*)::int AS count FROM "many"')).rows[0]!.count;
    expect(await count()).toBe(2000);

    const batched = new PostgresVectorStoreDriver({ pglite: db, batchSize: 3, logger: quiet });
    await batched.upsert(
      'many',
      Wide,
      Array.from({ length: 7 }, (_, i) => record(i, 100)),
    );
    const back = await batched.get('many', Wide, ['r0', 'r6', 'r7'], false);
    expect(back.map((r) => [r.id, r.n0, r.n39]).sort()).toEqual([
      ['r0', 100, 100],
      ['r6', 106, 106],
      ['r7', 7, 7],
    ]);
    expect(await count()).toBe(2000);
  });
});

describe('PostgresVectorStoreDriver on missing and existing tables', () => {
  const Mapped = defineRecord({
    key: { name: 'hotelId', type: 'integer', storageName: 'hotel_id' },
    data: { name: { type: 'string', storageName: 'hotel_name', filterable: true }, rating: { type: 'number', optional: true } },
    vectors: { embedding: { dimensions: 8, storageName: 'embedding' } },
  });
  const columnsOf = async (table: string) =>
    (
      await db.query<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      )
    ).rows;

  it('reads of a missing collection find nothing; writes fail with collection_not_found', async () => {
    expect(await driver.collectionExists('nowhere')).toBe(false);
    expect(await driver.get('nowhere', Mapped, [1], false)).toEqual([]);
    const query = {
      vectorProperty: Mapped.vectors[0]!,
      vector: new Float32Array(8).fill(1),
      limit: 3,
      filter: undefined,
      includeVectors: false,
    };
    expect(await driver.search('nowhere', Mapped, query)).toEqual([]);
    expect((await codeOf(driver.upsert('nowhere', Mapped, [{ hotel_id: 1, hotel_name: 'x', rating: null }])))[0]).toBe(
      'collection_not_found',
    );
    await driver.deleteCollection('nowhere'); // a no-op
  });

  it('uses an existing table with its own column names and key type, without altering it', async () => {
    await db.exec(
      `CREATE TABLE legacy_hotels (hotel_id bigint PRIMARY KEY, hotel_name varchar(80), rating real, embedding vector(8), extra text DEFAULT 'kept')`,
    );
    const before = await columnsOf('legacy_hotels');
    await driver.createCollection('legacy_hotels', Mapped);
    await driver.createCollection('legacy_hotels', Mapped);
    expect(await columnsOf('legacy_hotels')).toEqual(before);
    await driver.upsert('legacy_hotels', Mapped, [
      { hotel_id: 7, hotel_name: 'Sea View', rating: 4.5, embedding: new Float32Array(8).fill(0.5) },
    ]);
    expect(await driver.get('legacy_hotels', Mapped, [7], false)).toEqual([{ hotel_id: 7, hotel_name: 'Sea View', rating: 4.5 }]);
    expect((await db.query<{ extra: string }>('SELECT extra FROM legacy_hotels')).rows).toEqual([{ extra: 'kept' }]);
    expect(await driver.listCollections()).toContain('legacy_hotels');
  });

  it('contains on an existing varchar[] or text[] column matches with @> (served by a GIN index), and a jsonb column holds a string property', async () => {
    const Tagged = defineRecord({
      key: 'id',
      data: { labels: { type: 'string[]', filterable: true }, doc: { type: 'string' } },
      vectors: { embedding: { dimensions: 2 } },
    });
    await db.exec(`CREATE TABLE varchar_tags (id text PRIMARY KEY, labels varchar(20)[], doc jsonb, embedding vector(2));
      CREATE TABLE text_tags (id text PRIMARY KEY, labels text[], doc jsonb, embedding vector(2))`);
    for (const table of ['varchar_tags', 'text_tags']) {
      await driver.createCollection(table, Tagged);
      const rows = [
        { id: 'a', labels: ['x:1', 'y:2'], doc: '{"text":"one"}', embedding: new Float32Array([1, 0]) },
        { id: 'b', labels: ['y:2'], doc: '{"text":"two"}', embedding: new Float32Array([0, 1]) },
      ];
      await driver.upsert(table, Tagged, rows);
      const filter = compileFilter(Tagged, { labels: { contains: 'x:1' } });
      const found = await driver.query!(table, Tagged, { filter, orderBy: [], limit: 10, includeVectors: false });
      expect(found.map((r) => [r.id, JSON.parse(String(r.doc))])).toEqual([['a', { text: 'one' }]]);
      const { rows: typed } = await db.query<{ t: string }>(`SELECT jsonb_typeof(doc) AS t FROM ${table} WHERE id = 'a'`);
      expect(typed[0]!.t).toBe('object');
    }
  });

  it('refuses an existing table that cannot hold the records, naming the first column at fault, and changes nothing', async () => {
    await db.exec(`CREATE TABLE misfit (hotel_id bigint PRIMARY KEY, hotel_nme text, rating text, embedding vector(4))`);
    const before = await columnsOf('misfit');
    const cases: Array<[RecordDefinition, RegExp]> = [
      [Mapped, /collection "misfit": table "public"."misfit" has no column "hotel_name" \(property "name"\)/],
      [
        defineRecord({
          ...{ key: { name: 'hotelId', type: 'integer', storageName: 'hotel_id' } },
          data: { rating: { type: 'number' } },
          vectors: { embedding: { dimensions: 4 } },
        }),
        /column "rating" of table "public"."misfit" is text; property "rating" \(number\) needs double precision or real or numeric/,
      ],
      [
        defineRecord({ key: { name: 'hotelId', type: 'integer', storageName: 'hotel_id' }, vectors: { embedding: { dimensions: 8 } } }),
        /column "embedding" of table "public"."misfit" is vector\(4\); property "embedding" needs vector\(8\)/,
      ],
      [
        defineRecord({ key: { name: 'hotelId', storageName: 'hotel_id' }, vectors: { embedding: { dimensions: 4 } } }),
        /column "hotel_id" of table "public"."misfit" is bigint; property "hotelId" \(string key\) needs text or character varying/,
      ],
    ];
    for (const [definition, message] of cases) {
      const [code, text] = await codeOf(driver.createCollection('misfit', definition));
      expect(code).toBe('invalid_argument');
      expect(text).toMatch(message);
    }
    await db.exec(`CREATE TABLE keyless (id text, embedding vector(4))`);
    const Keyless = defineRecord({ key: 'id', vectors: { embedding: { dimensions: 4 } } });
    const [code, text] = await codeOf(driver.createCollection('keyless', Keyless));
    expect([code, text]).toEqual(['invalid_argument', expect.stringMatching(/key column "id" .* has no primary key or unique index/)]);
    expect(await columnsOf('misfit')).toEqual(before);
  });

  it('lists tables with a vector column, not the memory DB tables nor tables without vectors; the store leaves out names no collection can have', async () => {
    await db.exec(`CREATE TABLE "km-docs" (id text PRIMARY KEY, embedding vector(3)); CREATE TABLE plain_table (id text PRIMARY KEY);
      CREATE TABLE "not a collection name" (id text PRIMARY KEY, embedding vector(3))`);
    const names = await driver.listCollections();
    expect(names).toEqual(expect.arrayContaining(['filtered', 'legacy_hotels', 'misfit']));
    expect(names).not.toContain('km-docs');
    expect(names).not.toContain('plain_table');
    expect(names).toContain('not a collection name');
    expect(await new VectorStore(driver).listCollections()).not.toContain('not a collection name');
    const all = new PostgresVectorStoreDriver({ pglite: db, unlistedTablePrefix: false, logger: quiet });
    expect(await all.listCollections()).toContain('km-docs');
  });

  it('a value the column refuses is invalid_argument, not a raw driver error', async () => {
    await db.exec(`CREATE TABLE narrow (id text PRIMARY KEY, n integer, embedding vector(2))`);
    const Narrow = defineRecord({ key: 'id', data: { n: { type: 'integer' } }, vectors: { embedding: { dimensions: 2 } } });
    await driver.createCollection('narrow', Narrow);
    const [code, text] = await codeOf(driver.upsert('narrow', Narrow, [{ id: 'a', n: 2 ** 40, embedding: Float32Array.from([1, 1]) }]));
    expect(code).toBe('invalid_argument');
    expect(text).toMatch(/collection "narrow": PostgreSQL refused it: .*out of range/);
  });
});
