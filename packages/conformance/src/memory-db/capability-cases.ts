import { MemoryDb, MemoryFilters, isKmError, type MemoryDbCapabilities } from '@km/core';
import type { MemoryDbDriver } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { collect, eventually } from '../util/async.js';
import { record, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

const NOT_A_DRIVER = 'the instance is not a MemoryDb over a MemoryDbDriver';

/** Calls a {@link spyDriver} saw. */
interface DriverCalls {
  upsert: number;
  upsertBatch: number;
  search: number;
  list: number;
}

/**
 * The connector's own driver behind a front that declares other capabilities (and, with
 * `batch: false`, hides `upsertBatch`), counting the calls that reach it.
 */
function spyDriver(inner: MemoryDbDriver, capabilities: Partial<MemoryDbCapabilities>, batch = true) {
  const calls: DriverCalls = { upsert: 0, upsertBatch: 0, search: 0, list: 0 };
  const upsertBatch = inner.upsertBatch?.bind(inner);
  const driver: MemoryDbDriver = {
    name: inner.name,
    capabilities: { ...inner.capabilities, ...capabilities },
    ...(inner.indexNameLimit ? { indexNameLimit: inner.indexNameLimit } : {}),
    ...(inner.maxVectorSize !== undefined ? { maxVectorSize: inner.maxVectorSize } : {}),
    ...(inner.maxBatchSize !== undefined ? { maxBatchSize: inner.maxBatchSize } : {}),
    vectorSize: (index) => inner.vectorSize(index),
    createIndex: (index, size) => inner.createIndex(index, size),
    listIndexes: () => inner.listIndexes(),
    deleteIndex: (index) => inner.deleteIndex(index),
    upsert: (index, r) => (calls.upsert++, inner.upsert ? inner.upsert(index, r) : upsertBatch!(index, [r])),
    ...(batch && upsertBatch
      ? { upsertBatch: (index: string, rs: Parameters<typeof upsertBatch>[1]) => (calls.upsertBatch++, upsertBatch(index, rs)) }
      : {}),
    search: (index, query) => (calls.search++, inner.search(index, query)),
    list: (index, query) => (calls.list++, inner.list(index, query)),
    delete: (index, id) => inner.delete(index, id),
  };
  return { driver, calls };
}

/** Core reads the capabilities a driver declares and supplies what the driver lacks. */
export function capabilityCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);

  describe('capabilities, honoured by core', () => {
    it('a driver declaring no NOT support gets unsupported_filter from the wrapper, and is never asked', async (ctx) => {
      const { db, index, capabilities } = await fresh();
      if (!(db instanceof MemoryDb)) return ctx.skip(NOT_A_DRIVER);
      await db.createIndex(index, 3);
      await db.upsertBatch(index, [
        record('a', [1, 0, 0], { user: ['alice'] }, { text: 'probe' }),
        record('b', [0, 1, 0], { user: ['bob'] }, { text: 'probe' }),
      ]);
      const { driver, calls } = spyDriver(db.driver, { negatedFilters: false });
      const restricted = new MemoryDb(driver);
      const not = [MemoryFilters.byTag('user', 'bob').notTag('user', 'alice')];
      const query = capabilities.vectorSearch ? [1, 1, 0] : 'probe';
      const unsupported = (e: unknown) => isKmError(e, 'unsupported_filter');
      await expect(collect(restricted.getList(index, { filters: not }))).rejects.toSatisfy(unsupported);
      await expect(collect(restricted.getSimilarList(index, query, { filters: not, minRelevance: -1 }))).rejects.toSatisfy(unsupported);
      expect(calls).toMatchObject({ search: 0, list: 0 });
      // What the driver can express still reaches it.
      const equality = [MemoryFilters.byTag('user', 'bob')];
      await wait(async () => expect((await collect(restricted.getList(index, { filters: equality }))).map((r) => r.id)).toEqual(['b']));
      expect(calls.list).toBeGreaterThan(0);
    });

    it('a driver without upsertBatch gets one write per record from the wrapper', async (ctx) => {
      const { db, index } = await fresh();
      if (!(db instanceof MemoryDb)) return ctx.skip(NOT_A_DRIVER);
      await db.createIndex(index, 3);
      const { driver, calls } = spyDriver(db.driver, {}, false);
      const looping = new MemoryDb(driver);
      expect(looping.capabilities.nativeBatch).toBe(false);
      const ids = await looping.upsertBatch(
        index,
        ['x', 'y', 'z'].map((id, i) => record(id, [i + 1, 1, 0], {}, { text: 'probe' })),
      );
      expect(ids).toEqual(['x', 'y', 'z']);
      expect(calls).toMatchObject({ upsert: 3, upsertBatch: 0 });
      await wait(async () => expect((await collect(db.getList(index))).map((r) => r.id)).toEqual(['x', 'y', 'z']));
    });
  });
}
