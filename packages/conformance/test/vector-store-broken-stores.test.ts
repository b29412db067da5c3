import type { KeyValue } from '@km/core';
import { VectorStore } from '@km/collections';
import { SimpleVectorStoreDriver, type FilterNode, type StorageRecord, type VectorStoreDriver } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { caseOutcome } from './case-outcome.js';
import { filterOracleCase } from '../src/vector-store/filter-cases-suite.js';
import { vectorStoreCaseGroups } from '../src/vector-store/vector-store-cases.js';
import { runVectorStoreCase, type VectorStoreCase } from '../src/vector-store/vector-store-fixture.js';
import type { VectorStoreSuiteOptions } from '../src/vector-store/vector-store-suite-options.js';

/**
 * The suite must fail on stores that get a rule wrong: each broken driver below wraps the
 * built-in one and breaks one rule; the cases checking that rule must fail, and a case the
 * break does not touch must still pass (so the failure is the rule's, not the wrapper's).
 */

/** The built-in driver behind a front that replaces some members. */
function broken(overrides: (inner: SimpleVectorStoreDriver) => Partial<VectorStoreDriver>): VectorStoreSuiteOptions {
  return {
    name: 'broken',
    createStore: async () => {
      const inner = new SimpleVectorStoreDriver();
      const driver: VectorStoreDriver = {
        name: inner.name,
        keyTypes: inner.keyTypes,
        distances: inner.distances,
        listCollections: () => inner.listCollections(),
        collectionExists: (name) => inner.collectionExists(name),
        createCollection: (name, definition) => inner.createCollection(name, definition),
        deleteCollection: (name) => inner.deleteCollection(name),
        upsert: (name, definition, records) => inner.upsert(name, definition, records),
        get: (name, definition, keys, includeVectors) => inner.get(name, definition, keys, includeVectors),
        delete: (name, definition, keys) => inner.delete(name, definition, keys),
        search: (name, definition, query) => inner.search(name, definition, query),
        ...overrides(inner),
      };
      return new VectorStore(driver);
    },
  };
}

function mapLeaves(node: FilterNode, leaf: (node: FilterNode) => FilterNode): FilterNode {
  if (node.op === 'and' || node.op === 'or') return { op: node.op, nodes: node.nodes.map((n) => mapLeaves(n, leaf)) };
  if (node.op === 'not') return { op: 'not', node: mapLeaves(node.node, leaf) };
  return leaf(node);
}

const groups = vectorStoreCaseGroups();
function caseNamed(rule: string): VectorStoreCase {
  for (const cases of Object.values(groups)) if (cases[rule]) return cases[rule];
  throw new Error(`no case "${rule}"`);
}

/** Runs one case once (no retries); 'passed', 'skipped: <reason>' or 'failed: <message>'. */
async function outcome(options: VectorStoreSuiteOptions, run: VectorStoreCase): Promise<string> {
  return caseOutcome((skip) => runVectorStoreCase(options, run, { visibilityTimeoutMs: 0, skip }));
}

interface BrokenStore {
  options: VectorStoreSuiteOptions;
  /** Cases that must fail. */
  fails: string[];
  /** A case the break does not touch, which must pass. */
  passes: string;
}

const BROKEN_STORES: Record<string, BrokenStore> = {
  'a store that reads ne as eq': {
    options: broken((inner) => ({
      search: (name, definition, query) =>
        inner.search(name, definition, {
          ...query,
          filter: query.filter && mapLeaves(query.filter, (n) => (n.op === 'ne' ? { ...n, op: 'eq' } : n)),
        }),
    })),
    fails: ["ne on a string matches records without the property: the oracle's records", "ne on the key: the oracle's records"],
    passes: "eq on a string: the oracle's records",
  },
  'a store that drops the last search result': {
    options: broken((inner) => ({
      search: async (name, definition, query) => (await inner.search(name, definition, query)).slice(0, -1),
    })),
    fails: [
      "cosine: scores and order equal the oracle's over 60 records of 8 dimensions",
      "dot: top and skip page through the oracle's order; the default top is 3",
      "eq on a string: the oracle's records",
    ],
    passes: 'every data type round-trips exactly with string keys, with and without vectors (get and getMany)',
  },
  'a store that ignores filters': {
    options: broken((inner) => ({ search: (name, definition, query) => inner.search(name, definition, { ...query, filter: undefined }) })),
    fails: [
      `"$1" as a value matches exactly the records holding it: the oracle's records`,
      "gte on a date includes the bound: the oracle's records",
    ],
    passes: "euclidean: scores and order equal the oracle's over 60 records of 8 dimensions",
  },
  'a store that reports euclidean distance as a similarity': {
    options: broken((inner) => ({
      search: async (name, definition, query) => {
        const hits = await inner.search(name, definition, query);
        return query.vectorProperty.distance === 'euclidean' ? hits.map(([r, d]): [StorageRecord, number] => [r, 1 / (1 + d)]) : hits;
      },
    })),
    fails: [
      "euclidean: scores and order equal the oracle's over 60 records of 8 dimensions",
      'euclidean: minScore drops results scoring worse (a maximum distance)',
    ],
    passes: "cosine: scores and order equal the oracle's over 60 records of 8 dimensions",
  },
  'a store that keeps dates to the second and empty arrays as null': {
    options: broken((inner) => ({
      upsert: (name, definition, records) =>
        inner.upsert(
          name,
          definition,
          records.map((r) =>
            Object.fromEntries(
              Object.entries(r).map(([k, v]) => [
                k,
                v instanceof Date ? new Date(Math.floor(v.getTime() / 1000) * 1000) : Array.isArray(v) && v.length === 0 ? null : v,
              ]),
            ),
          ),
        ),
    })),
    fails: [
      'every data type round-trips exactly with string keys, with and without vectors (get and getMany)',
      'every data type round-trips exactly with uuid keys, with and without vectors (get and getMany)',
    ],
    passes: "cosine: scores and order equal the oracle's over 60 records of 8 dimensions",
  },
  'a store whose upsert merges into the record it replaces': {
    options: broken((inner) => ({
      upsert: async (name, definition, records) => {
        const keys = records.map((r) => r[definition.key.storageName] as KeyValue);
        const old = new Map((await inner.get(name, definition, keys, true)).map((r) => [r[definition.key.storageName], r]));
        const merged = records.map((r) => {
          const before = old.get(r[definition.key.storageName]) ?? {};
          return Object.fromEntries([...Object.entries(before), ...Object.entries(r).filter(([, v]) => v !== null && v !== undefined)]);
        });
        await inner.upsert(name, definition, merged);
      },
    })),
    fails: ['upsert replaces a record by key, keeping nothing of the old one'],
    passes: 'delete removes one key, then several; missing keys are ignored',
  },
  'a store whose ne leaves out records without the property': {
    options: broken((inner) => ({
      search: async (name, definition, query) => {
        const hits = await inner.search(name, definition, query);
        const node = query.filter;
        if (node?.op !== 'ne') return hits;
        return hits.filter(([r]) => r[node.property.storageName] !== null && r[node.property.storageName] !== undefined);
      },
    })),
    fails: ["ne on a string matches records without the property: the oracle's records"],
    passes: "ne on an integer: the oracle's records",
  },
  'a store whose lt matches missing values (null sorts first)': {
    options: broken((inner) => ({
      search: async (name, definition, query) => {
        const hits = await inner.search(name, definition, query);
        const node = query.filter;
        if (node?.op !== 'lt') return hits;
        const all = await inner.search(name, definition, { ...query, filter: undefined });
        const missing = all.filter(([r]) => r[node.property.storageName] === null || r[node.property.storageName] === undefined);
        return [...hits, ...missing].slice(0, query.limit);
      },
    })),
    fails: ["a comparison on a missing or null value is false: the oracle's records", "lt on a number: the oracle's records"],
    passes: "lt on an integer: the oracle's records",
  },
  'a store that passes storage names unquoted to its backend': {
    options: broken((inner) => ({
      createCollection: async (name, definition) => {
        const raw = [...definition.data, ...definition.vectors].find((p) => /['"\\ .$]/.test(p.storageName));
        if (raw) throw new Error(`syntax error at or near "${raw.storageName}"`);
        await inner.createCollection(name, definition);
      },
    })),
    fails: ['hostile storage names in a definition are quoted by the store, or refused with invalid_argument'],
    passes: 'injection strings as collection names are refused with invalid_argument, and the store is unharmed',
  },
  'a store whose createCollection empties an existing collection': {
    options: broken((inner) => ({
      createCollection: async (name, definition) => {
        await inner.deleteCollection(name);
        await inner.createCollection(name, definition);
      },
    })),
    fails: ['ensureExists on an existing collection keeps its records'],
    passes: 'reads of a missing collection return nothing',
  },
  'a store that keeps numbers as 32-bit floats': {
    options: broken((inner) => ({
      upsert: (name, definition, records) => {
        const numbers = definition.data.filter((p) => p.type === 'number').map((p) => p.storageName);
        return inner.upsert(
          name,
          definition,
          records.map((r) => ({
            ...r,
            ...Object.fromEntries(numbers.map((n) => [n, typeof r[n] === 'number' ? Math.fround(r[n]) : r[n]])),
          })),
        );
      },
    })),
    fails: ['every data type round-trips exactly with integer keys, with and without vectors (get and getMany)'],
    passes: "eq on an integer: the oracle's records",
  },
  'a store that cuts string keys to 200 characters': {
    options: broken((inner) => {
      const cut = (k: KeyValue) => (typeof k === 'string' ? k.slice(0, 200) : k);
      return {
        upsert: (name, definition, records) =>
          inner.upsert(
            name,
            definition,
            records.map((r) => ({ ...r, [definition.key.storageName]: cut(r[definition.key.storageName] as KeyValue) })),
          ),
        get: (name, definition, keys, includeVectors) => inner.get(name, definition, keys.map(cut), includeVectors),
      };
    }),
    fails: ['every data type round-trips exactly with string keys, with and without vectors (get and getMany)'],
    passes: 'every data type round-trips exactly with uuid keys, with and without vectors (get and getMany)',
  },
  'a store that searches only `top` records, forgetting `skip`': {
    options: broken((inner) => ({
      search: (name, definition, query) => inner.search(name, definition, { ...query, limit: Math.min(query.limit, 5) }),
    })),
    fails: ["cosine: top and skip page through the oracle's order; the default top is 3"],
    passes: "eq on a date: the oracle's records",
  },
  'a store that reads in: [] as match-all': {
    options: broken((inner) => ({
      search: (name, definition, query) =>
        inner.search(name, definition, {
          ...query,
          filter: query.filter && mapLeaves(query.filter, (n) => (n.op === 'in' && n.values.length === 0 ? { op: 'and', nodes: [] } : n)),
        }),
    })),
    fails: ["in: [] matches nothing (within an or): the oracle's records"],
    passes: "in on a string: the oracle's records",
  },
  'a store whose query ignores descending': {
    options: broken((inner) => ({
      query: (name, definition, query) =>
        inner.query(name, definition, { ...query, orderBy: query.orderBy.map((o) => ({ ...o, descending: false })) }),
    })),
    fails: ['query orders by a property, ascending or descending, ties by key ascending; top and skip page'],
    passes: 'query returns records with their values, and vectors only when asked',
  },
  'a store whose upsert creates a missing collection': {
    options: broken((inner) => ({
      upsert: async (name, definition, records) => {
        if (!(await inner.collectionExists(name))) await inner.createCollection(name, definition);
        await inner.upsert(name, definition, records);
      },
    })),
    fails: ['writes to a missing collection throw collection_not_found and create nothing'],
    passes: 'reads of a missing collection return nothing',
  },
};

describe('describeVectorStore fails on broken stores', () => {
  for (const [name, { options, fails, passes }] of Object.entries(BROKEN_STORES)) {
    it(`${name}: ${fails.length} case(s) fail, an untouched one passes`, async () => {
      for (const rule of fails) expect(await outcome(options, caseNamed(rule)), rule).toMatch(/^failed: /);
      expect(await outcome(options, caseNamed(passes)), passes).toBe('passed');
    });
  }

  it('a store declaring fewer filter operators: core refuses them with unsupported_filter, and the cases accept that', async () => {
    const options = broken(() => ({ filterOperators: ['and', 'or', 'eq', 'in', 'gt', 'gte', 'lt', 'lte'] }));
    expect(await outcome(options, caseNamed('an operator not in capabilities.filterOperators throws unsupported_filter'))).toBe('passed');
    expect(await outcome(options, caseNamed("contains on string[]: the oracle's records"))).toBe('passed');
    expect(await outcome(options, caseNamed("not of an or: the oracle's records"))).toBe('passed');
  });

  it('a store that drops negations fails the not cases', async () => {
    const options = broken((inner) => ({
      search: (name, definition, query) => inner.search(name, definition, { ...query, filter: query.filter && stripNot(query.filter) }),
    }));
    expect(await outcome(options, caseNamed("not of an or: the oracle's records"))).toMatch(/^failed: /);
    expect(await outcome(options, caseNamed("not of a range keeps records without the property: the oracle's records"))).toMatch(
      /^failed: /,
    );
  });

  it('a store without query: the query cases are a named skip', async () => {
    expect(
      await outcome(
        broken(() => ({})),
        caseNamed('query returns records with their values, and vectors only when asked'),
      ),
    ).toMatch(/^skipped: /);
  });

  it('a vacuous filter case fails before it touches the store', async () => {
    const options = broken(() => ({}));
    expect(await outcome(options, filterOracleCase('every record', { rooms: { gte: 0 } }))).toMatch(/vacuous case "every record"/);
    expect(await outcome(options, filterOracleCase('no record', { city: 'Atlantis' }))).toMatch(/vacuous case "no record"/);
  });
});

function stripNot(node: FilterNode): FilterNode {
  if (node.op === 'not') return stripNot(node.node);
  if (node.op === 'and' || node.op === 'or') return { op: node.op, nodes: node.nodes.map(stripNot) };
  return node;
}
