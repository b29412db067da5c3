import { isKmError, matchesFilters, MemoryFilters, type MemoryFilter, type TagCollection } from '@km/core';
import { compareRecordIds } from '@km/core/connector';
import { expect } from 'vitest';
import { collect } from '../util/async.js';
import { described, type MemoryDbCase, type MemoryDbCaseContext } from './memory-db-case.js';
import { NO_VECTOR_SEARCH, record, upsertAll } from './memory-db-fixture.js';

/** Ids in the order km lists them (UTF-16 code units): upper case before lower case, an astral character before U+FF21. */
export const LIST_ORDER_IDS = ['b', 'B', 'a', 'A', '_a', 'a b', 'ab', 'é', 'z', 'Z', '\uFF21', '😀', '~', '0'];

/** Tag values a query builder must pass as values: each must match only the record holding exactly it. */
export const EXACT_MATCH_VALUES = [
  'a OR 1=1',
  "') OR ('1'='1",
  '%',
  'a%',
  '_',
  '\\',
  '\\\\',
  '*',
  ':',
  ')',
  '(',
  '--',
  'a',
  'ab',
  'ü',
  'Ü',
  '$1',
  '{"$ne":null}',
];

/** Seed of the null-tag case: `null` is a value of its own, unlike `''` or a missing key. */
export const NULL_TAG_SEED: Record<string, TagCollection> = {
  n1: { flag: [null] },
  n2: { flag: [null, 'x'] },
  s1: { flag: ['x'] },
  s2: { flag: [''] },
  s3: { other: [null] },
  s4: {},
};

const queryOf = (t: MemoryDbCaseContext, dims = 3) => (t.capabilities.vectorSearch ? Array.from({ length: dims }, () => 1) : 'probe');

/** The ids (sorted) getList and getSimilarList return for `filters`, and the similarity scores, for messages. */
async function filtered(t: MemoryDbCaseContext, filters: MemoryFilter[]) {
  const listed = (await collect(t.db.getList(t.index, { filters }))).map((r) => r.id).sort();
  const similar = await collect(t.db.getSimilarList(t.index, queryOf(t), { filters, minRelevance: -1, limit: 100 }));
  return { listed, similar: similar.map(([r]) => r.id).sort(), scores: Object.fromEntries(similar.map(([r, s]) => [r.id, s])) };
}

/** Cases for rules a store can break while passing the rest: each has a broken store in this package's tests that fails it. */
export const MEMORY_DB_RULE_CASES: Readonly<Record<string, MemoryDbCase>> = {
  'deleteIndex removes the records: an index created again under the name holds none of them': async (t) => {
    const { db, index } = t;
    await db.createIndex(index, 3);
    await upsertAll(
      db,
      index,
      ['old-1', 'old-2'].map((id) => record(id, [1, 0, 0], { k: ['v'] }, { text: 'probe' })),
    );
    await t.wait(async () => expect(await collect(db.getList(index))).toHaveLength(2));
    await db.deleteIndex(index);
    await db.createIndex(index, 3);
    await db.upsert(index, record('marker', [0, 1, 0], {}, { text: 'probe' }));
    await t.wait(async () => expect((await collect(db.getList(index))).map((r) => r.id)).toContain('marker'));
    const ids = (await collect(db.getList(index))).map((r) => r.id);
    expect(ids, 'records written before deleteIndex came back when the index was created again').toEqual(['marker']);
  },

  'a null tag value is a value: byTag(key, null) finds exactly the records holding it, notTag(key, null) the others': async (t) => {
    const { db, index, capabilities } = t;
    const ids = Object.keys(NULL_TAG_SEED);
    await db.createIndex(index, 3);
    await upsertAll(
      db,
      index,
      ids.map((id) => record(id, [1, ids.indexOf(id) + 1, 0.5], NULL_TAG_SEED[id]!, { text: 'probe' })),
    );
    await t.wait(async () => expect(await collect(db.getList(index))).toHaveLength(ids.length));
    const fixture = described('fixture (id → tags)', NULL_TAG_SEED);
    const n1 = (await collect(db.getList(index))).find((r) => r.id === 'n1');
    expect(n1?.tags, `tags of n1 after a round trip; ${fixture}`).toEqual({ flag: [null] });
    for (const filters of [[MemoryFilters.byTag('flag', null)], [MemoryFilters.notTag('flag', null)]]) {
      const negated = filters[0]!.conditions[0]!.negated;
      const label = described(
        'filter',
        filters.map((f) => f.conditions),
      );
      if (negated && !capabilities.negatedFilters) {
        await expect(collect(db.getList(index, { filters })), label).rejects.toSatisfy((e: unknown) => isKmError(e, 'unsupported_filter'));
        continue;
      }
      const expected = ids.filter((id) => matchesFilters(NULL_TAG_SEED[id]!, filters)).sort();
      const got = await filtered(t, filters);
      const message = `${label}; ${fixture}; ${described('scores', got.scores)}`;
      expect(got.listed, `getList: ${message}`).toEqual(expected);
      expect(got.similar, `getSimilarList: ${message}`).toEqual(expected);
    }
  },

  'an all-zero vector is stored and listed where the capabilities allow it (zeroVectors), else refused with invalid_argument; never dropped':
    async (t) => {
      const { db, index, capabilities } = t;
      if (!capabilities.vectorSearch) t.skip(NO_VECTOR_SEARCH);
      await db.createIndex(index, 3);
      const zero = record('zero', [0, 0, 0], { k: ['z'] }, { text: 'probe' });
      if (capabilities.zeroVectors) {
        await db.upsert(index, zero);
      } else {
        await expect(db.upsert(index, zero), 'upsert of a zero vector with zeroVectors: false').rejects.toSatisfy((e: unknown) =>
          isKmError(e, 'invalid_argument'),
        );
      }
      // Written after it: once the marker shows, the zero record would too.
      await db.upsert(index, record('marker', [1, 0, 0], {}, { text: 'probe' }));
      await t.wait(async () => expect((await collect(db.getList(index))).map((r) => r.id)).toContain('marker'));
      const listed = await collect(db.getList(index, { withEmbeddings: true }));
      const message = `zeroVectors: ${capabilities.zeroVectors}; ${described(
        'listed',
        listed.map((r) => ({ id: r.id, vector: r.vector })),
      )}`;
      if (!capabilities.zeroVectors) {
        expect(
          listed.map((r) => r.id),
          `a refused zero vector was written; ${message}`,
        ).toEqual(['marker']);
        return;
      }
      expect(
        listed.map((r) => r.id),
        `a zero vector was accepted, then dropped; ${message}`,
      ).toEqual(['marker', 'zero']);
      expect(Array.from(listed[1]!.vector), message).toEqual([0, 0, 0]);
      expect(
        (await collect(db.getList(index, { filters: [MemoryFilters.byTag('k', 'z')] }))).map((r) => r.id),
        message,
      ).toEqual(['zero']);
    },

  'getList orders ids by UTF-16 code units (compareRecordIds): case-sensitive, astral characters before U+E000..U+FFFF': async (t) => {
    const { db, index } = t;
    await db.createIndex(index, 3);
    await upsertAll(
      db,
      index,
      LIST_ORDER_IDS.map((id, i) => record(id, [1, i + 1, 0], {}, { text: 'probe' })),
    );
    await t.wait(async () => expect(await collect(db.getList(index))).toHaveLength(LIST_ORDER_IDS.length));
    const expected = [...LIST_ORDER_IDS].sort(compareRecordIds);
    const fixture = described('ids written', LIST_ORDER_IDS);
    expect(
      (await collect(db.getList(index))).map((r) => r.id),
      `getList order; ${fixture}`,
    ).toEqual(expected);
    for (const limit of [1, 3, expected.indexOf('😀') + 1, expected.length - 1]) {
      const ids = (await collect(db.getList(index, { limit }))).map((r) => r.id);
      expect(ids, `getList with limit ${limit}; ${fixture}`).toEqual(expected.slice(0, limit));
    }
  },

  'filter values with SQL, LIKE, regex or query-syntax characters match only exactly (never spliced), quote or not': async (t) => {
    const { db, index } = t;
    const seed: Record<string, TagCollection> = Object.fromEntries(
      EXACT_MATCH_VALUES.map((v, i) => [`h${String(i).padStart(2, '0')}`, { v: [v] }]),
    );
    const ids = Object.keys(seed);
    await db.createIndex(index, 3);
    await upsertAll(
      db,
      index,
      ids.map((id, i) => record(id, [1, i + 1, 0.5], seed[id]!, { text: 'probe' })),
    );
    await t.wait(async () => expect(await collect(db.getList(index))).toHaveLength(ids.length));
    const wrong: string[] = [];
    for (const value of EXACT_MATCH_VALUES) {
      const filters = [MemoryFilters.byTag('v', value)];
      const expected = ids.filter((id) => matchesFilters(seed[id]!, filters)).sort();
      const got = await filtered(t, filters);
      if (JSON.stringify([got.listed, got.similar]) !== JSON.stringify([expected, expected])) {
        wrong.push(
          `${described('filter', filters[0]!.conditions)} expected ${JSON.stringify(expected)}, getList gave ${JSON.stringify(got.listed)}, getSimilarList ${described('scores', got.scores)}`,
        );
      }
    }
    const report = `filters that matched more or less than their value:\n${wrong.join('\n')}\n${described('fixture (id → tags)', seed)}`;
    expect(wrong, report).toEqual([]);
  },
};
