import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AzureAiSearchMemoryDb, type AzureAiSearchMemoryDbOptions } from '../src/index.js';
import { READS, runScenario, type ScenarioResult } from './fixtures/compat-scenario.js';
import { FakeSearchService, type WireRequest } from './fixtures/fake-search-service.js';
import { readODataFilter } from './fixtures/odata-reader.js';

// Indexes written by km 0.x's memory DB driver open unchanged. The fixture holds what that driver
// sent to the service (recorded by fixtures/make-compat-fixture.ts on a fake service), the
// documents and index definitions the service then held, and what its reads returned. Today's
// AzureAiSearchMemoryDb must (a) write the same documents and definitions, (b) read the stored
// documents back into the same records and results, and (c) send the same requests, a filter
// being equal when it selects the same documents (the two translators may word it differently).
const fixture = JSON.parse(await readFile(new URL('./fixtures/km-azure-v0.json', import.meta.url), 'utf8')) as ScenarioResult;

let service: FakeSearchService;
beforeEach(async () => {
  service = await FakeSearchService.start();
});
afterEach(() => service.close());

const open = (options: Partial<AzureAiSearchMemoryDbOptions>) =>
  new AzureAiSearchMemoryDb({ endpoint: service.url, apiKey: 'secret-key', allowInsecureConnection: true, maxRetries: 0, ...options });

/** The tag strings a filter names (its literals, search.in lists split). */
function tagsNamed(filter: string): string[] {
  const names: string[] = [];
  for (const m of filter.matchAll(/search\.in\(t, '((?:[^']|'')*)', '((?:[^']|'')*)'\)|'((?:[^']|'')*)'/g)) {
    if (m[1] !== undefined) names.push(...m[1].replaceAll("''", "'").split(m[2]!.replaceAll("''", "'")));
    else names.push(m[3]!.replaceAll("''", "'"));
  }
  return [...new Set(names)];
}

/**
 * Whether two filters select the same documents: tried on every combination of the tag strings
 * either names (with other fields as in the stored documents), and on every stored document.
 */
function sameSelection(expected: string, actual: string, stored: Array<Record<string, unknown>>): boolean {
  const [a, b] = [readODataFilter(expected), readODataFilter(actual)];
  const names = [...new Set([...tagsNamed(expected), ...tagsNamed(actual)])];
  expect(names.length, `tags of ${expected}`).toBeLessThanOrEqual(12);
  const documents = [...stored];
  for (let mask = 0; mask < 1 << names.length; mask++) documents.push({ tags: names.filter((_, i) => mask & (1 << i)) });
  return documents.every((d) => a(d) === b(d));
}

/**
 * A request body with its vectors in single precision: km 0.x sent a vector given as numbers as
 * it was, today's code sends it as the `Float32Array` km checks it into; the service holds and
 * compares `Collection(Edm.Single)`, so both are the same vector to it.
 */
function singlePrecision(request: WireRequest): WireRequest {
  const round = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.every((v) => typeof v === 'number') ? value.map((v) => Math.fround(v)) : value.map(round);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, round(v)]));
    return value;
  };
  return request.body === undefined ? request : { ...request, body: round(request.body) };
}

/**
 * The requests without a read of an index definition repeated at once. The one known difference:
 * creating an index, core's bridge (`VectorStoreMemoryDbDriver.createIndex`) reads the index's
 * vector size again after `MemoryDb` read it, so a new index costs one more `GET /indexes('x')`.
 */
function withoutRepeatedReads(requests: WireRequest[]): WireRequest[] {
  return requests.filter(
    (r, i) =>
      !(
        i > 0 &&
        r.method === 'GET' &&
        r.path.startsWith('/indexes(') &&
        requests[i - 1]!.method === 'GET' &&
        requests[i - 1]!.path === r.path
      ),
  );
}

/** Requests with the filters of both lists checked for equal selection, then made equal, so the rest compares exactly. */
function compareRequests(step: string, expectedRequests: WireRequest[], actualRequests: WireRequest[]): void {
  const stored = Object.values(fixture.stored).flat() as Array<Record<string, unknown>>;
  const [expected, actual] = [expectedRequests.map(singlePrecision), withoutRepeatedReads(actualRequests).map(singlePrecision)];
  const normalised = actual.map((request, i) => {
    const want = (expected[i]?.body ?? {}) as { filter?: string };
    const got = (request.body ?? {}) as { filter?: string };
    if (typeof want.filter === 'string' && typeof got.filter === 'string' && want.filter !== got.filter) {
      expect(sameSelection(want.filter, got.filter, stored), `${step}: ${got.filter} selects as ${want.filter}`).toBe(true);
      return { ...request, body: { ...got, filter: want.filter } };
    }
    return request;
  });
  expect(normalised, step).toEqual(expected);
}

describe('AzureAiSearchMemoryDb and the indexes of km 0.x', () => {
  it('(a) writes the same documents and index definitions, sending the same requests', async () => {
    const result = await runScenario(service, open);
    expect(result.definitions).toEqual(fixture.definitions);
    expect(result.stored).toEqual(fixture.stored);
    for (const [step, expected] of Object.entries(fixture.writes)) {
      expect(result.writes[step]?.outcome, step).toEqual(expected.outcome);
      compareRequests(step, expected.requests, result.writes[step]!.requests);
    }
  });

  it('(b, c) reads the stored documents back into the same records and results, with equivalent requests', async () => {
    for (const [name, definition] of Object.entries(fixture.definitions)) {
      const documents = (fixture.stored[name] ?? []) as Array<Record<string, unknown>>;
      const key = (definition as { fields: Array<{ name: string; key?: boolean }> }).fields.find((f) => f.key)!.name;
      service.indexes.set(name, {
        definition: definition as never,
        documents: new Map(documents.map((d) => [String(d[key]), d])),
      });
    }
    for (const [step, run] of READS) {
      service.requests.length = 0;
      const outcome = await run(open);
      expect(outcome, step).toEqual(fixture.reads[step]!.outcome);
      compareRequests(step, fixture.reads[step]!.requests, [...service.requests]);
    }
  });
});
