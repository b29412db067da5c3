import { describe, expect, it } from 'vitest';
import { isKmError } from '../src/errors/km-error.js';
import { compileFilter } from '../src/vector-store/filter-compiler.js';
import { defineRecord } from '../src/vector-store/record-definition.js';
import type { DistanceFunction, RecordDefinition } from '../src/vector-store/record-definition-types.js';
import { BoundedBest } from '../src/vector-store/simple/bounded-best.js';
import { SimpleVectorStoreDriver } from '../src/vector-store/simple/simple-vector-store-driver.js';
import type { DriverRecordQuery, StorageRecord } from '../src/vector-store/vector-store-driver.js';
import { CITIES, Hotel, hotels, oracleSearch, random, vectorOf, vectorQuery } from './vector-store-simple-fixtures.js';

const DISTANCES: DistanceFunction[] = ['cosine', 'dot', 'euclidean'];
const ids = (records: StorageRecord[]) => records.map((r) => r.id).sort();

async function storeWith(records: StorageRecord[]): Promise<SimpleVectorStoreDriver> {
  const driver = new SimpleVectorStoreDriver();
  await driver.createCollection('hotels', Hotel);
  await driver.upsert('hotels', Hotel, records);
  return driver;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('SimpleVectorStoreDriver: records', () => {
  it('declares every key type and distance', () => {
    const driver = new SimpleVectorStoreDriver();
    expect([...driver.keyTypes].sort()).toEqual(['integer', 'string', 'uuid']);
    expect([...driver.distances].sort()).toEqual(['cosine', 'dot', 'euclidean']);
  });

  it('gets what was upserted, by storage name, with vectors only when asked for', async () => {
    const [first, second] = hotels(2);
    const driver = await storeWith([first!, second!]);
    const [withoutVectors] = await driver.get('hotels', Hotel, ['h0001'], false);
    expect(withoutVectors).toEqual({
      id: 'h0001',
      hotel_name: second!.hotel_name,
      rating: second!.rating,
      rooms: second!.rooms,
      open: second!.open,
      opened: second!.opened,
      tags: second!.tags,
      sizes: second!.sizes,
    });
    expect(withoutVectors!.opened).toBeInstanceOf(Date);
    const [withVectors] = await driver.get('hotels', Hotel, ['h0001'], true);
    expect(withVectors!.cos).toEqual(second!.cos);
    expect(withVectors!.dot_vec).toEqual(second!.dot_vec);
    expect(withVectors!.l2).toEqual(second!.l2);
    expect(withVectors!.cos).toBeInstanceOf(Float32Array);
    // The first record has no l2 vector and no rooms (null).
    const [firstBack] = await driver.get('hotels', Hotel, ['h0000'], true);
    expect(firstBack).not.toHaveProperty('l2');
    expect(firstBack!.rooms).toBeNull();
  });

  it('returns only the keys that exist, and forgets deleted records', async () => {
    const driver = await storeWith(hotels(5));
    expect(ids(await driver.get('hotels', Hotel, ['h0003', 'nope', 'h0001'], false))).toEqual(['h0001', 'h0003']);
    await driver.delete('hotels', Hotel, ['h0001', 'missing']);
    expect(ids(await driver.get('hotels', Hotel, ['h0001', 'h0003'], false))).toEqual(['h0003']);
    const found = await driver.search('hotels', Hotel, vectorQuery('cosine', Float32Array.of(1, 0, 0, 0), 10));
    expect(found.map(([r]) => r.id).sort()).toEqual(['h0000', 'h0002', 'h0003', 'h0004']);
  });

  it('replaces a record on upsert by key (a missing optional value and vector are then gone)', async () => {
    const [record] = hotels(2);
    const driver = await storeWith([hotels(2)[1]!]);
    const replacement = { ...record!, id: 'h0001', rooms: undefined, l2: undefined, hotel_name: 'Replaced' };
    await driver.upsert('hotels', Hotel, [replacement]);
    const [back] = await driver.get('hotels', Hotel, ['h0001'], true);
    expect(back!.hotel_name).toBe('Replaced');
    expect(back!.rooms).toBeNull();
    expect(back).not.toHaveProperty('l2');
  });

  it('keeps copies: changing the records given or returned changes nothing stored', async () => {
    const [record] = hotels(1, 7);
    const driver = await storeWith([record!]);
    const before = (await driver.get('hotels', Hotel, ['h0000'], true))[0]!;
    const snapshot = structuredClone(before);
    (record!.cos as Float32Array)[0] = 99;
    (record!.tags as string[]).push('changed');
    (record!.opened as Date).setTime(0);
    before.rating = -1;
    (before.cos as Float32Array)[1] = 42;
    (before.tags as string[]).push('changed too');
    (before.opened as Date).setTime(1);
    const [searched] = await driver.search('hotels', Hotel, {
      ...vectorQuery('cosine', Float32Array.of(1, 1, 1, 1), 1),
      includeVectors: true,
    });
    (searched![0].cos as Float32Array)[2] = 7;
    (searched![0].tags as string[]).length = 0;
    expect((await driver.get('hotels', Hotel, ['h0000'], true))[0]).toEqual(snapshot);
  });

  it('refuses a vector of the wrong length with invalid_argument', async () => {
    const driver = await storeWith([]);
    const [record] = hotels(1);
    const error = await failure(driver.upsert('hotels', Hotel, [{ ...record!, cos: Float32Array.of(1, 2) }]));
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect(String(error)).toMatch(/"cos".*2 dimensions, expected 4/);
  });
});

describe('BoundedBest', () => {
  it('keeps the best `limit` items in order, as sorting everything would', () => {
    const next = random(3);
    for (const limit of [0, 1, 2, 5, 64]) {
      const items = Array.from({ length: 200 }, (_, i) => ({ score: Math.floor(next() * 20), id: i }));
      const ranking = (a: { score: number; id: number }, b: { score: number; id: number }) => b.score - a.score || a.id - b.id;
      const best = new BoundedBest(limit, ranking);
      for (const item of items) best.offer(item);
      expect(best.sorted()).toEqual(items.slice().sort(ranking).slice(0, limit));
    }
  });
});

describe('SimpleVectorStoreDriver: exact search', () => {
  const records = hotels(300, 11);
  const queries = Array.from({ length: 5 }, (_, i) => vectorOf(random(100 + i)));

  for (const distance of DISTANCES) {
    it(`scores every record holding the vector (${distance}), best first, as a brute-force search does`, async () => {
      const driver = await storeWith(records);
      for (const vector of queries) {
        for (const limit of [1, 7, 50, 1000]) {
          const found = await driver.search('hotels', Hotel, vectorQuery(distance, vector, limit));
          const expected = oracleSearch(records, distance, vector, limit);
          expect(found.map(([r]) => r.id)).toEqual(expected.map(([id]) => id));
          found.forEach(([, score], i) => expect(score).toBeCloseTo(expected[i]![1], 10));
        }
      }
    });

    it(`filters before it keeps the best (${distance})`, async () => {
      const driver = await storeWith(records);
      const filter = { rating: { gte: 2.5 }, tags: { contains: 'pool' }, or: [{ name: 'Paris' }, { rooms: { lt: 100 } }] };
      const accept = (r: StorageRecord) =>
        (r.rating as number) >= 2.5 &&
        (r.tags as string[]).includes('pool') &&
        (r.hotel_name === 'Paris' || (r.rooms !== null && (r.rooms as number) < 100));
      for (const vector of queries) {
        const found = await driver.search('hotels', Hotel, vectorQuery(distance, vector, 10, filter));
        const expected = oracleSearch(records, distance, vector, 10, accept);
        expect(expected.length).toBe(10);
        expect(found.map(([r]) => r.id)).toEqual(expected.map(([id]) => id));
      }
    });
  }

  it('skips records without the searched vector', async () => {
    const driver = await storeWith(records);
    const found = await driver.search('hotels', Hotel, vectorQuery('euclidean', queries[0]!, 1000));
    expect(found).toHaveLength(records.filter((r) => r.l2).length);
    expect(found.some(([r]) => Number((r.id as string).slice(1)) % 5 === 0)).toBe(false);
  });

  it('breaks ties by key, whatever the insertion order, and returns nothing for limit 0', async () => {
    const same = Float32Array.of(0.5, 0.5, 0, 0);
    const tied = ['k09', 'k01', 'k05', 'k03', 'k07'].map((id) => ({ ...hotels(1)[0]!, id, cos: same, dot_vec: same, l2: same }));
    const driver = await storeWith(tied);
    for (const distance of DISTANCES) {
      const found = await driver.search('hotels', Hotel, vectorQuery(distance, Float32Array.of(1, 0, 0, 0), 3));
      expect(found.map(([r]) => r.id)).toEqual(['k01', 'k03', 'k05']);
    }
    expect(await driver.search('hotels', Hotel, vectorQuery('cosine', same, 0))).toEqual([]);
  });

  it('orders integer keys by value when scores tie', async () => {
    const Numbered = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 2 } } });
    const driver = new SimpleVectorStoreDriver();
    await driver.createCollection('numbered', Numbered);
    await driver.upsert(
      'numbered',
      Numbered,
      [10, 2, 33, 1].map((n) => ({ n, v: Float32Array.of(1, 1) })),
    );
    const query = {
      vectorProperty: Numbered.vectors[0]!,
      vector: Float32Array.of(1, 0),
      limit: 3,
      filter: undefined,
      includeVectors: false,
    };
    expect((await driver.search('numbered', Numbered, query)).map(([r]) => r.n)).toEqual([1, 2, 10]);
    expect((await driver.get('numbered', Numbered, [33], false))[0]).toEqual({ n: 33 });
  });

  it('returns the vectors of the results when asked', async () => {
    const driver = await storeWith(records.slice(0, 10));
    const [[record]] = (await driver.search('hotels', Hotel, { ...vectorQuery('dot', queries[0]!, 1), includeVectors: true })) as [
      [StorageRecord, number],
    ];
    const source = records.find((r) => r.id === record.id)!;
    expect(record.dot_vec).toEqual(source.dot_vec);
    const [[plain]] = (await driver.search('hotels', Hotel, vectorQuery('dot', queries[0]!, 1))) as [[StorageRecord, number]];
    expect(plain).not.toHaveProperty('dot_vec');
  });

  it('stops a search whose signal is aborted', async () => {
    const driver = await storeWith(records);
    const signal = AbortSignal.abort();
    const error = await failure(driver.search('hotels', Hotel, { ...vectorQuery('cosine', queries[0]!, 3), signal }));
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('SimpleVectorStoreDriver: filters', () => {
  const records = hotels(120, 5);
  const cases: Array<[string, unknown, (r: StorageRecord) => boolean]> = [
    ['eq on a storage name', { name: 'Rome' }, (r) => r.hotel_name === 'Rome'],
    ['ne matches records without the value', { rooms: { ne: 5 } }, (r) => r.rooms !== 5],
    ['in', { name: { in: ['Oslo', 'Lima'] } }, (r) => r.hotel_name === 'Oslo' || r.hotel_name === 'Lima'],
    ['in []', { name: { in: [] } }, () => false],
    ['gt on integers is false for null', { rooms: { gt: 150 } }, (r) => r.rooms !== null && (r.rooms as number) > 150],
    ['lte on numbers', { rating: { lte: 1.5 } }, (r) => (r.rating as number) <= 1.5],
    [
      'date range',
      { opened: { gte: '2010-01-01T00:00:00.000Z', lt: new Date('2015-01-01') } },
      (r) => {
        const t = (r.opened as Date).getTime();
        return t >= Date.parse('2010-01-01') && t < Date.parse('2015-01-01');
      },
    ],
    ['boolean eq', { open: true }, (r) => r.open === true],
    ['contains on string[]', { tags: { contains: 'spa' } }, (r) => (r.tags as string[]).includes('spa')],
    ['contains on number[] (null never contains)', { sizes: { contains: 3 } }, (r) => ((r.sizes as number[] | null) ?? []).includes(3)],
    ['not', { not: { open: true } }, (r) => r.open !== true],
    ['or []', { or: [] }, () => false],
    ['the key', { id: { in: ['h0003', 'h0100', 'nope'] } }, (r) => r.id === 'h0003' || r.id === 'h0100'],
  ];
  for (const [name, filter, accept] of cases) {
    it(`applies ${name}`, async () => {
      const driver = await storeWith(records);
      const found = await driver.search('hotels', Hotel, vectorQuery('cosine', Float32Array.of(1, 0, 0, 0), 1000, filter));
      expect(found.map(([r]) => r.id).sort()).toEqual(
        records
          .filter(accept)
          .map((r) => r.id)
          .sort(),
      );
    });
  }
});

describe('SimpleVectorStoreDriver: query by filter and order', () => {
  const query = (partial: Partial<DriverRecordQuery>): DriverRecordQuery => ({
    filter: undefined,
    orderBy: [],
    limit: 1000,
    includeVectors: false,
    ...partial,
  });

  it('orders by the given properties, missing values last either way, ties by key', async () => {
    const records = hotels(40, 3);
    const driver = await storeWith(records);
    for (const descending of [false, true]) {
      const found = await driver.query('hotels', Hotel, query({ orderBy: [{ storageName: 'rooms', descending }] }));
      const withRooms = records.filter((r) => r.rooms !== null);
      const expected = [
        ...withRooms
          .slice()
          .sort(
            (a, b) => ((a.rooms as number) - (b.rooms as number)) * (descending ? -1 : 1) || ((a.id as string) < (b.id as string) ? -1 : 1),
          ),
        ...records.filter((r) => r.rooms === null),
      ].map((r) => r.id);
      expect(found.map((r) => r.id)).toEqual(expected);
    }
  });

  it('filters, then keeps the first `limit`', async () => {
    const records = hotels(40, 3);
    const driver = await storeWith(records);
    const filter = compileFilter(Hotel as RecordDefinition<unknown>, { name: 'Paris' });
    const found = await driver.query(
      'hotels',
      Hotel,
      query({ filter, orderBy: [{ storageName: 'opened', descending: true }], limit: 4, includeVectors: true }),
    );
    const expected = records
      .filter((r) => r.hotel_name === CITIES[0])
      .sort((a, b) => (b.opened as Date).getTime() - (a.opened as Date).getTime())
      .slice(0, 4);
    expect(found.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    expect(found[0]!.cos).toEqual(expected[0]!.cos);
  });

  it('orders by key when no order is given', async () => {
    const records = hotels(12, 3).reverse();
    const driver = await storeWith(records);
    expect((await driver.query('hotels', Hotel, query({ limit: 3 }))).map((r) => r.id)).toEqual(['h0000', 'h0001', 'h0002']);
  });
});

describe('SimpleVectorStoreDriver: collections', () => {
  it('creates idempotently, lists, reports existence and deletes', async () => {
    const driver = new SimpleVectorStoreDriver();
    expect(await driver.collectionExists('hotels')).toBe(false);
    await driver.createCollection('hotels', Hotel);
    await driver.upsert('hotels', Hotel, hotels(3));
    await driver.createCollection('hotels', Hotel);
    expect(ids(await driver.get('hotels', Hotel, ['h0000', 'h0001', 'h0002'], false))).toHaveLength(3);
    await driver.createCollection('b-other', Hotel);
    expect(await driver.listCollections()).toEqual(['b-other', 'hotels']);
    await driver.deleteCollection('hotels');
    await driver.deleteCollection('hotels');
    expect(await driver.collectionExists('hotels')).toBe(false);
    expect(await driver.listCollections()).toEqual(['b-other']);
  });

  it('reads a missing collection as empty and refuses writes to it with collection_not_found', async () => {
    const driver = new SimpleVectorStoreDriver();
    expect(await driver.get('ghost', Hotel, ['h0000'], false)).toEqual([]);
    expect(await driver.search('ghost', Hotel, vectorQuery('cosine', Float32Array.of(1, 0, 0, 0), 3))).toEqual([]);
    expect(await driver.query('ghost', Hotel, { filter: undefined, orderBy: [], limit: 3, includeVectors: false })).toEqual([]);
    expect(isKmError(await failure(driver.upsert('ghost', Hotel, hotels(1))), 'collection_not_found')).toBe(true);
    expect(isKmError(await failure(driver.delete('ghost', Hotel, ['h0000'])), 'collection_not_found')).toBe(true);
  });

  it('refuses a definition that differs from the collection’s, naming the difference', async () => {
    const driver = new SimpleVectorStoreDriver();
    await driver.createCollection('hotels', Hotel);
    const other = defineRecord({
      key: 'id',
      data: { name: { type: 'string', storageName: 'hotel_name' } },
      vectors: { cos: { dimensions: 8 } },
    });
    const error = await failure(driver.createCollection('hotels', other));
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect(String(error)).toMatch(/collection "hotels" exists with another definition: data property "rating" of the collection/);
    expect(isKmError(await failure(driver.get('hotels', other, ['x'], false)), 'invalid_argument')).toBe(true);
  });

  it('serialises concurrent writes to one collection: no update is lost', async () => {
    const driver = await storeWith([]);
    const records = hotels(60, 9);
    await Promise.all([...records.map((record) => driver.upsert('hotels', Hotel, [record])), driver.delete('hotels', Hotel, ['h0000'])]);
    const back = await driver.get(
      'hotels',
      Hotel,
      records.map((r) => r.id as string),
      false,
    );
    expect(back).toHaveLength(59);
  });
});
