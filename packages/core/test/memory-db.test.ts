import { describe, expect, it } from 'vitest';
import { cosineSimilarity, type CheckedRecord, type DriverList, type DriverSearch, type MemoryDbDriver } from '../src/connector.js';
import {
  HashingEmbeddingGenerator,
  IndexNotFoundError,
  MemoryDb,
  MemoryFilter,
  MemoryFilters,
  isKmError,
  matchesFilters,
  type MemoryDbCapabilities,
  type MemoryRecord,
} from '../src/index.js';

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

/**
 * A driver over plain arrays that records what the wrapper asks of it. It lets these tests
 * check the wrapper's own rules; the connectors themselves are proven by `@km/conformance`.
 */
class ArrayDriver implements MemoryDbDriver {
  readonly name = 'array';
  readonly indexes = new Map<string, { size: number; records: Map<string, CheckedRecord> }>();
  readonly calls: Array<[string, ...unknown[]]> = [];
  /** What `search` answers, when set (to check how the wrapper treats a driver's answer). */
  answer: Array<[MemoryRecord, number]> | undefined;
  createFails: Error | undefined;

  constructor(
    readonly capabilities: Partial<MemoryDbCapabilities> = {},
    readonly maxBatchSize?: number,
    readonly indexNameLimit?: { bytes: number; reason: string },
  ) {}

  async vectorSize(index: string) {
    this.calls.push(['vectorSize', index]);
    return this.indexes.get(index)?.size;
  }
  async createIndex(index: string, size: number) {
    this.calls.push(['createIndex', index, size]);
    if (this.createFails) throw this.createFails;
    if (!this.indexes.has(index)) this.indexes.set(index, { size, records: new Map() });
  }
  async listIndexes() {
    return [...this.indexes.keys()];
  }
  async deleteIndex(index: string) {
    this.indexes.delete(index);
  }
  async upsertBatch(index: string, records: CheckedRecord[]) {
    this.calls.push(['upsertBatch', index, records.map((r) => r.id)]);
    const target = this.indexes.get(index);
    if (!target) throw new IndexNotFoundError(index);
    for (const r of records) target.records.set(r.id, r);
  }
  async search(index: string, query: DriverSearch) {
    this.calls.push(['search', index, query]);
    if (this.answer) return this.answer;
    const target = this.indexes.get(index);
    if (!target) throw new IndexNotFoundError(index);
    return [...target.records.values()]
      .filter((r) => matchesFilters(r.tags, query.filters))
      .map((r): [MemoryRecord, number] => [toRecord(r), cosineSimilarity(query.vector!, r.vector)]);
  }
  async *list(index: string, query: DriverList) {
    this.calls.push(['list', index, query]);
    const target = this.indexes.get(index);
    if (!target) throw new IndexNotFoundError(index);
    const ids = [...target.records.keys()].sort();
    for (const id of ids.slice(0, query.limit)) yield toRecord(target.records.get(id)!);
  }
  async delete(index: string, id: string) {
    this.calls.push(['delete', index, id]);
    this.indexes.get(index)?.records.delete(id);
  }
  called(method: string) {
    return this.calls.filter(([m]) => m === method);
  }
}

function toRecord(r: CheckedRecord): MemoryRecord {
  return { id: r.id, vector: r.vector, tags: r.tags, payload: JSON.parse(r.payloadJson) as Record<string, unknown> };
}

const record = (id: string, vector: number[], tags = {}): MemoryRecord => ({ id, vector, tags, payload: { text: id } });

describe('MemoryDb over a driver', () => {
  it('normalises index names before the driver sees them, and refuses names past the driver limit with its reason', async () => {
    const driver = new ArrayDriver({}, undefined, { bytes: 8, reason: 'array names hold 8 bytes' });
    const db = new MemoryDb(driver);
    await db.createIndex(' My_Notes ', 2);
    expect(driver.called('createIndex')).toEqual([['createIndex', 'my-notes', 2]]);
    await expect(db.createIndex('much-too-long', 2)).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'invalid_index_name') && /13 bytes; array names hold 8 bytes, so at most 8/.test((e as Error).message),
    );
  });

  it('caches the vector size: one driver lookup, then writes and reads go straight through', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    await db.createIndex('a', 2);
    await db.upsert('a', record('x', [1, 0]));
    await collect(db.getList('a'));
    await collect(db.getSimilarList('a', [1, 0]));
    expect(driver.called('vectorSize')).toHaveLength(1);
  });

  it('refuses records of another size, and a query vector of another size, before the driver sees them', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    await db.createIndex('a', 2);
    await expect(db.upsert('a', record('x', [1, 0, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    await expect(collect(db.getSimilarList('a', [1, 0, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    expect(driver.called('upsertBatch')).toEqual([]);
    expect(driver.called('search')).toEqual([]);
  });

  it('de-duplicates a batch (the last record of an id wins) and splits it at the driver maxBatchSize', async () => {
    const driver = new ArrayDriver({}, 2);
    const db = new MemoryDb(driver);
    await db.createIndex('a', 2);
    const ids = await db.upsertBatch('a', [record('x', [1, 0]), record('y', [0, 1]), record('x', [1, 1]), record('z', [1, 0])]);
    expect(ids).toEqual(['x', 'y', 'x', 'z']);
    expect(driver.called('upsertBatch').map(([, , batch]) => batch)).toEqual([['x', 'y'], ['z']]);
    expect(Array.from(driver.indexes.get('a')!.records.get('x')!.vector)).toEqual([1, 1]);
  });

  it('a missing index: reads yield nothing and deletes do nothing without asking the driver; writes throw index_not_found', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    expect(await collect(db.getList('nope'))).toEqual([]);
    expect(await collect(db.getSimilarList('nope', [1, 0]))).toEqual([]);
    await db.delete('nope', { id: 'x' });
    expect(driver.calls.map(([m]) => m)).toEqual(['vectorSize', 'vectorSize', 'vectorSize']);
    await expect(db.upsert('nope', record('x', [1, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'index_not_found'));
  });

  it('an index deleted behind its back reads as empty, and its size is looked up again afterwards', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    await db.createIndex('a', 2);
    driver.indexes.delete('a'); // another process dropped it
    expect(await collect(db.getSimilarList('a', [1, 0]))).toEqual([]);
    await expect(db.upsert('a', record('x', [1, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'index_not_found'));
    expect(driver.called('vectorSize')).toHaveLength(2);
  });

  it('a driver that creates on upsert gets the index created with the records vector size', async () => {
    const driver = new ArrayDriver({ createsIndexOnUpsert: true });
    const db = new MemoryDb(driver);
    await db.upsert('fresh', record('x', [1, 0, 0]));
    expect(driver.called('createIndex')).toEqual([['createIndex', 'fresh', 3]]);
    expect((await collect(db.getList('fresh'))).map((r) => r.id)).toEqual(['x']);
  });

  it('a creation race lost to another creator of the same size succeeds; of another size it is vector_size_mismatch', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    driver.createFails = new Error('already exists');
    const raced = () => driver.indexes.set('a', { size: 2, records: new Map() });
    driver.calls.length = 0;
    const original = driver.vectorSize.bind(driver);
    let lookups = 0;
    driver.vectorSize = async (index) => (++lookups === 2 && raced(), original(index));
    await db.createIndex('a', 2);
    expect(lookups).toBe(2);
    await expect(new MemoryDb(driver).createIndex('a', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    driver.indexes.clear();
    await expect(new MemoryDb(driver).createIndex('b', 2)).rejects.toThrow('already exists');
  });

  it("keeps results >= minRelevance, ranks them (ties by id), cuts them to the limit, whatever the driver's answer", async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    await db.createIndex('a', 2);
    driver.answer = [
      [record('low', [1, 0]), 0.1],
      [record('b', [1, 0]), 0.8],
      [record('top', [1, 0]), 0.9],
      [record('a', [1, 0]), 0.8],
    ];
    const results = await collect(db.getSimilarList('a', [1, 0], { minRelevance: 0.5, limit: 2 }));
    expect(results.map(([r, s]) => `${r.id}:${s}`)).toEqual(['top:0.9', 'a:0.8']);
    expect(driver.called('search')[0]![2]).toMatchObject({ minRelevance: 0.5, limit: 2, withEmbeddings: false });
    expect(results.every(([r]) => r.vector.length === 0)).toBe(true);
  });

  it('limit <= 0 means maxSearchResults for searches and all records for listings', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver, { maxSearchResults: 7 });
    await db.createIndex('a', 2);
    await collect(db.getSimilarList('a', [1, 0], { limit: 0 }));
    await collect(db.getList('a', { limit: -1 }));
    expect(driver.called('search')[0]![2]).toMatchObject({ limit: 7 });
    expect(driver.called('list')[0]![2]).toMatchObject({ limit: undefined });
  });

  it('embeds a text query with its generator, and without one refuses it with not_configured', async () => {
    const embeddings = new HashingEmbeddingGenerator({ dimensions: 16 });
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver, { embeddingGenerator: embeddings });
    await db.createIndex('a', 16);
    const [vector] = await embeddings.generateEmbeddings(['moon landing']);
    await db.upsert('a', { id: 'm', vector: vector!, tags: {}, payload: { text: 'moon landing' } });
    const [first] = await collect(db.getSimilarList('a', 'moon landing'));
    expect(first?.[0].id).toBe('m');
    expect(first?.[1]).toBeCloseTo(1, 5);
    await expect(collect(new MemoryDb(driver).getSimilarList('a', 'moon'))).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'not_configured'),
    );
  });

  it('an empty filter in the list reaches the driver as no filter at all', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    await db.createIndex('a', 2);
    await collect(db.getList('a', { filters: [MemoryFilters.byTag('k', 'v'), MemoryFilters.byTag('k', 'v').notTag('x', 'y')] }));
    await collect(db.getList('a', { filters: [MemoryFilters.byTag('k', 'v'), new MemoryFilter()] }));
    expect(driver.called('list').map(([, , q]) => (q as DriverList).filters.length)).toEqual([2, 0]);
  });

  it('zeroVectors: false refuses a zero vector on write and answers a zero query with nothing', async () => {
    const driver = new ArrayDriver({ zeroVectors: false });
    const db = new MemoryDb(driver);
    await db.createIndex('a', 2);
    await expect(db.upsert('a', record('z', [0, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
    expect(await collect(db.getSimilarList('a', [0, 0]))).toEqual([]);
    expect(driver.called('search')).toEqual([]);
  });

  it('refuses a driver that can write nothing', () => {
    const { upsertBatch: _, ...readOnly } = Object.fromEntries(
      Object.getOwnPropertyNames(ArrayDriver.prototype).map((k) => [k, () => undefined]),
    ) as Record<string, unknown>;
    expect(() => new MemoryDb({ ...readOnly, name: 'broken' } as unknown as MemoryDbDriver)).toThrow(/neither upsertBatch nor upsert/);
  });
});

describe('MemoryDb: driver errors reach callers as KmErrors', () => {
  it('wraps a raw error of a write, a search and a listing in upstream_error with the cause', async () => {
    const driver = new ArrayDriver();
    const db = new MemoryDb(driver);
    await db.createIndex('raw', 2);
    const raw = new TypeError('cannot read properties of undefined');
    driver.upsertBatch = async () => Promise.reject(raw);
    driver.search = async () => Promise.reject(raw);
    driver.list = async function* () {
      yield* [];
      throw raw;
    };
    const caught = async (run: () => Promise<unknown>) =>
      run().then(
        () => undefined,
        (e: unknown) => e,
      );
    for (const error of [
      await caught(() => db.upsert('raw', { id: 'a', vector: [1, 0], tags: {}, payload: {} })),
      await caught(() => collect(db.getSimilarList('raw', [1, 0]))),
      await caught(() => collect(db.getList('raw'))),
    ]) {
      expect(isKmError(error, 'upstream_error')).toBe(true);
      expect((error as Error & { cause?: unknown }).cause).toBe(raw);
      expect((error as Error).message).toContain('cannot read properties of undefined');
    }
  });

  it('keeps the KmErrors a driver throws as they are', async () => {
    const driver = new ArrayDriver();
    driver.createFails = new IndexNotFoundError('x');
    const db = new MemoryDb(driver);
    await expect(db.createIndex('x', 2)).rejects.toBe(driver.createFails);
  });
});
