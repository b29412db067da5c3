import { isKmError, matchesFilters, MemoryFilter, MemoryFilters } from '@km/core';
import { describe, expect, it } from 'vitest';
import { collect, eventually } from '../util/async.js';
import { FILTER_CASES, FILTER_SEED } from './filter-cases.js';
import { described } from './memory-db-case.js';
import { record, upsertAll, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

/** Every filter case against an in-memory oracle; unsupported conditions must throw. */
export function filterCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);
  const ids = Object.keys(FILTER_SEED);
  const expectedIds = (filters: MemoryFilter[]) => ids.filter((id) => matchesFilters(FILTER_SEED[id]!, filters)).sort();
  const seed = async () => {
    const f = await fresh();
    await f.db.createIndex(f.index, 3);
    await upsertAll(
      f.db,
      f.index,
      ids.map((id, i) => record(id, [1, i + 1, 0.5], FILTER_SEED[id]!, { text: 'shared words' })),
    );
    return f;
  };
  const query = (f: MemoryDbFixture) => (f.capabilities.vectorSearch ? [1, 1, 1] : 'shared words');

  describe('filters', () => {
    for (const [name, { filters, negated }] of Object.entries(FILTER_CASES)) {
      const title = negated
        ? `${name}: the oracle's records, or unsupported_filter where the capabilities say NOT is unsupported (never an ignored condition)`
        : `${name}: getList and getSimilarList return exactly the oracle's records`;
      it(title, async () => {
        const expected = expectedIds(filters);
        // A case expecting nothing or everything would pass with a filter that does nothing.
        expect(expected.length, `vacuous case "${name}": the oracle expects no record`).toBeGreaterThan(0);
        expect(expected.length, `vacuous case "${name}": the oracle expects every record`).toBeLessThan(ids.length);
        const f = await seed();
        const { db, index } = f;
        if (negated && !f.capabilities.negatedFilters) {
          await expect(collect(db.getList(index, { filters }))).rejects.toSatisfy((e: unknown) => isKmError(e, 'unsupported_filter'));
          await expect(collect(db.getSimilarList(index, query(f), { filters, minRelevance: -1 }))).rejects.toSatisfy((e: unknown) =>
            isKmError(e, 'unsupported_filter'),
          );
          return;
        }
        // Wait for the seed to show, then assert once: a wrong filter fails at once, not after the timeout.
        await wait(async () => expect(await collect(db.getList(index))).toHaveLength(ids.length));
        const listed = (await collect(db.getList(index, { filters }))).map((r) => r.id).sort();
        const similar = await collect(db.getSimilarList(index, query(f), { filters, minRelevance: -1, limit: 100 }));
        const scores = Object.fromEntries(similar.map(([r, s]) => [r.id, s]));
        const message = [
          described(
            'filter',
            filters.map((x) => x.conditions),
          ),
          described('fixture (id → tags)', FILTER_SEED),
          described('getSimilarList scores', scores),
        ].join('; ');
        expect(listed, `getList: ${message}`).toEqual(expected);
        expect(similar.map(([r]) => r.id).sort(), `getSimilarList: ${message}`).toEqual(expected);
      });
    }

    it('an empty filter list, or an empty filter in the list, matches everything', async () => {
      const { db, index } = await seed();
      await wait(async () => {
        expect(await collect(db.getList(index, { filters: [] }))).toHaveLength(ids.length);
        expect(await collect(db.getList(index, { filters: [new MemoryFilter(), MemoryFilters.byTag('user', 'alice')] }))).toHaveLength(
          ids.length,
        );
      });
    });

    it('a filter on a value no record has matches nothing', async () => {
      const { db, index } = await seed();
      await wait(async () => expect(await collect(db.getList(index))).toHaveLength(ids.length));
      expect(await collect(db.getList(index, { filters: [MemoryFilters.byTag('user', 'nobody')] }))).toEqual([]);
    });
  });
}
