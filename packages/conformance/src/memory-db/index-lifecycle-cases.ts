import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { collect, eventually } from '../util/async.js';
import { record, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

/** Index lifecycle and name normalisation (DESIGN §4: index names, missing index). */
export function indexLifecycleCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);

  describe('index lifecycle', () => {
    it('creates, lists and deletes an index; createIndex twice is a no-op', async () => {
      const { db, index } = await fresh();
      await db.createIndex(index, 3);
      await db.createIndex(index, 3);
      await wait(async () => expect(await db.getIndexes()).toContain(index));
      await db.deleteIndex(index);
      await wait(async () => expect(await db.getIndexes()).not.toContain(index));
    });

    it('normalises index names: trimmed, lower-case, separators become dashes', async () => {
      const { db, index } = await fresh();
      const messy = ` ${index.toUpperCase().replace(/-/g, '_')}.v1 `;
      await db.createIndex(messy, 3);
      await db.upsert(`${index} v1`, record('a', [1, 0, 0], {}, { text: 'probe' }));
      await wait(async () => expect(await db.getIndexes()).toContain(`${index}-v1`));
      await wait(async () => expect((await collect(db.getList(`${index}:V1`))).map((r) => r.id)).toEqual(['a']));
      await db.deleteIndex(`${index}/v1`);
    });

    it('concurrent createIndex calls on one index all succeed', async () => {
      const { db, index } = await fresh();
      await Promise.all(Array.from({ length: 5 }, () => db.createIndex(index, 4)));
      await wait(async () => expect((await db.getIndexes()).filter((n) => n === index)).toHaveLength(1));
    });

    it('refuses invalid index names with invalid_index_name, including injection attempts', async () => {
      const { db } = await fresh();
      for (const bad of ['bad*name', "x'; DROP TABLE y; --", 'a"b', 'semi;colon', 'ünï']) {
        await expect(db.createIndex(bad, 3), bad).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
        await expect(db.upsert(bad, record('a', [1, 0, 0])), bad).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
      }
    });

    it('a missing index: listing and searching yield nothing, deleting it or a record in it is a no-op', async () => {
      const { db, index, capabilities } = await fresh();
      expect(await collect(db.getList(index))).toEqual([]);
      expect(await collect(db.getSimilarList(index, capabilities.vectorSearch ? [1, 0, 0] : 'probe'))).toEqual([]);
      await db.delete(index, { id: 'nope' });
      await db.deleteIndex(index);
    });

    it('upserting into a missing index creates it when the capabilities say createsIndexOnUpsert, else throws IndexNotFoundError (index_not_found)', async () => {
      const { db, index, capabilities } = await fresh();
      if (capabilities.createsIndexOnUpsert) {
        await db.upsert(index, record('a', [1, 0, 0], {}, { text: 'probe' }));
        await wait(async () => expect(await collect(db.getList(index))).toHaveLength(1));
      } else {
        await expect(db.upsert(index, record('a', [1, 0, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'index_not_found'));
      }
    });

    it('deleteIndex removes the records too', async () => {
      const { db, index } = await fresh();
      await db.createIndex(index, 3);
      await db.upsert(index, record('a', [1, 0, 0], {}, { text: 'probe' }));
      await db.deleteIndex(index);
      await wait(async () => expect(await collect(db.getList(index))).toEqual([]));
    });
  });
}
