import { MemoryDb, SimpleVectorDb, type MemoryFilter, type MemoryRecord } from '@km/core';
import type { DriverList, DriverSearch, MemoryDbDriver } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { caseOutcome } from './case-outcome.js';
import { runMemoryDbCase } from '../src/memory-db/memory-db-case.js';
import { MEMORY_DB_RULE_CASES } from '../src/memory-db/memory-db-rule-cases.js';
import type { MemoryDbSuiteOptions } from '../src/memory-db/memory-db-suite-options.js';

/**
 * The memory DB suite must fail on stores that break a rule while passing the rest. Each broken
 * store below is core's SimpleVectorDb driver behind a front that breaks one rule, the way a
 * community store did; its case must fail, and must pass on SimpleVectorDb itself.
 */

/** SimpleVectorDb's driver with some members replaced. */
function broken(overrides: (inner: MemoryDbDriver) => Partial<MemoryDbDriver>): MemoryDbSuiteOptions {
  return {
    create: () => {
      const inner = new SimpleVectorDb().driver;
      const driver: MemoryDbDriver = {
        name: 'broken',
        capabilities: inner.capabilities ?? {},
        vectorSize: (index) => inner.vectorSize(index),
        createIndex: (index, size) => inner.createIndex(index, size),
        listIndexes: () => inner.listIndexes(),
        deleteIndex: (index) => inner.deleteIndex(index),
        upsertBatch: (index, records) => inner.upsertBatch!(index, records),
        search: (index, query) => inner.search(index, query),
        list: (index, query) => inner.list(index, query),
        delete: (index, id) => inner.delete(index, id),
        ...overrides(inner),
      };
      return new MemoryDb(driver);
    },
    dispose: (db) => (db as MemoryDb).close(),
  };
}

/** A list driver that reads everything its inner driver lists, then reorders and cuts it. */
function reordered(inner: MemoryDbDriver, compare: (a: string, b: string) => number) {
  return async function* (index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const all: MemoryRecord[] = [];
    for await (const r of inner.list(index, { ...query, limit: undefined })) all.push(r);
    yield* all.sort((a, b) => compare(a.id, b.id)).slice(0, query.limit);
  };
}

/** Byte (code point) order, as `ORDER BY id COLLATE "C"` on a UTF-8 database gives. */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Matches a value the way `tags LIKE '%key:<value>%'` would, with the value spliced in when it holds no quote. */
function splicedMatch(tags: Record<string, Array<string | null>>, key: string, value: string): boolean {
  if (/\bOR\b/i.test(value)) return true; // `... = 'a' OR 1=1` is true everywhere
  const pattern = new RegExp(
    `^${value
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/%/g, '.*')
      .replace(/_/g, '.')}$`,
    's',
  );
  return (tags[key] ?? []).some((v) => v !== null && pattern.test(v));
}

/** Filters whose values hold no quote evaluated by {@link splicedMatch}; the rest go to the inner driver. */
function splicing(inner: MemoryDbDriver): Partial<MemoryDbDriver> {
  const unquoted = (filters: readonly MemoryFilter[]) =>
    filters.length === 1 && filters[0]!.conditions.length === 1 && !/['"]/.test(filters[0]!.conditions[0]!.value ?? "'");
  const matches = (filters: readonly MemoryFilter[], r: MemoryRecord) => {
    const c = filters[0]!.conditions[0]!;
    return splicedMatch(r.tags, c.key, c.value!);
  };
  return {
    search: async (index, query: DriverSearch) => {
      if (!unquoted(query.filters)) return inner.search(index, query);
      return (await inner.search(index, { ...query, filters: [] })).filter(([r]) => matches(query.filters, r));
    },
    list: async function* (index, query) {
      for await (const r of inner.list(index, unquoted(query.filters) ? { ...query, filters: [] } : query)) {
        if (!unquoted(query.filters) || matches(query.filters, r)) yield r;
      }
    },
  };
}

const hasNull = (filters: readonly MemoryFilter[]) => filters.some((f) => f.conditions.some((c) => c.value === null));

const DELETE_INDEX = 'deleteIndex removes the records: an index created again under the name holds none of them';
const NULL_TAG = 'a null tag value is a value: byTag(key, null) finds exactly the records holding it, notTag(key, null) the others';
const ZERO_VECTOR =
  'an all-zero vector is stored and listed where the capabilities allow it (zeroVectors), else refused with invalid_argument; never dropped';
const LIST_ORDER = 'getList orders ids by UTF-16 code units (compareRecordIds): case-sensitive, astral characters before U+E000..U+FFFF';
const EXACT = 'filter values with SQL, LIKE, regex or query-syntax characters match only exactly (never spliced), quote or not';

const BROKEN_STORES: Record<string, { options: MemoryDbSuiteOptions; fails: string; message: RegExp }> = {
  DeleteIndexKeepsRecordsDb: {
    // deleteIndex only hides the index; createIndex shows it again, records and all.
    options: broken((inner) => {
      const hidden = new Set<string>();
      return {
        vectorSize: async (index) => (hidden.has(index) ? undefined : inner.vectorSize(index)),
        listIndexes: async () => (await inner.listIndexes()).filter((i) => !hidden.has(i)),
        deleteIndex: async (index) => void hidden.add(index),
        createIndex: async (index, size) => (hidden.delete(index), inner.createIndex(index, size)),
      };
    }),
    fails: DELETE_INDEX,
    message: /came back when the index was created again/,
  },
  NullTagMatchesNothingDb: {
    options: broken((inner) => ({
      search: async (index, query) => (hasNull(query.filters) ? [] : inner.search(index, query)),
      list: (index, query) => (hasNull(query.filters) ? (async function* () {})() : inner.list(index, query)),
    })),
    fails: NULL_TAG,
    message: /"value":null/,
  },
  DropsZeroVectorsDb: {
    options: broken((inner) => ({
      upsertBatch: (index, records) =>
        inner.upsertBatch!(
          index,
          records.filter((r) => Array.from(r.vector).some((x) => x !== 0)),
        ),
    })),
    fails: ZERO_VECTOR,
    message: /accepted, then dropped/,
  },
  CaseInsensitiveListOrderDb: {
    options: broken((inner) => ({ list: reordered(inner, (a, b) => a.toLowerCase().localeCompare(b.toLowerCase())) })),
    fails: LIST_ORDER,
    message: /getList order; ids written/,
  },
  CodePointListOrderDb: {
    options: broken((inner) => ({ list: reordered(inner, byCodePoint) })),
    fails: LIST_ORDER,
    message: /getList order; ids written/,
  },
  SplicesUnquotedFilterValuesDb: {
    options: broken(splicing),
    fails: EXACT,
    message: /a OR 1=1.*getSimilarList scores/s,
  },
};

/** Runs one case once; 'passed', 'skipped: <reason>' or 'failed: <message>'. */
async function outcome(options: MemoryDbSuiteOptions, rule: string): Promise<string> {
  const run = MEMORY_DB_RULE_CASES[rule];
  if (!run) throw new Error(`no case "${rule}"`);
  return caseOutcome((skip) => runMemoryDbCase(options, run, { visibilityTimeoutMs: 0, skip }));
}

describe('describeMemoryDb fails on broken stores', () => {
  for (const [name, { options, fails, message }] of Object.entries(BROKEN_STORES)) {
    it(`${name} fails "${fails}", which SimpleVectorDb passes`, async () => {
      const failure = await outcome(options, fails);
      expect(failure).toMatch(/^failed: /);
      expect(failure).toMatch(message);
      expect(
        await outcome(
          broken(() => ({})),
          fails,
        ),
      ).toBe('passed');
    });
  }

  it('a store declaring zeroVectors: false passes the zero-vector case: core refuses them with invalid_argument', async () => {
    const options = broken((inner) => ({ capabilities: { ...inner.capabilities, zeroVectors: false } }));
    expect(await outcome(options, ZERO_VECTOR)).toBe('passed');
  });

  it('a store that refuses NOT passes the null-tag case with unsupported_filter', async () => {
    const options = broken((inner) => ({ capabilities: { ...inner.capabilities, negatedFilters: false } }));
    expect(await outcome(options, NULL_TAG)).toBe('passed');
  });
});
