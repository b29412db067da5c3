import { describe, expect, it } from 'vitest';
import { QdrantMemoryDb } from '../src/index.js';
import { CONFIGURATIONS, type Configuration, STEPS } from './fixtures/compat-scenario.js';
import { matches, type QdrantState, type SeenRequest, type StoredPoint, startFakeQdrant } from './fixtures/fake-qdrant.js';
import fixture from './fixtures/km-qdrant-v0.json' with { type: 'json' };

// km 0.x's QdrantMemoryDbDriver recorded, against the in-memory model of Qdrant's REST API
// (fixtures/fake-qdrant.ts), the requests of every step of compat-scenario.ts, what each step
// returned, and the points the server held after the writes and at the end
// (fixtures/km-qdrant-v0.json, made by fixtures/make-compat-fixture.ts). Today's QdrantMemoryDb
// (core's MemoryDb over QdrantVectorStoreDriver) must write the same points, read the old points
// back into the same records, and send the same requests: equal (filters too, and they must
// select the same points), except for the differences listed in `expectSameRequests`.
type Step = { name: string; requests: SeenRequest[]; output: unknown };
const OLD = fixture as unknown as { steps: Step[]; stored: QdrantState; final: QdrantState };
const firstRead = STEPS.findIndex((s) => !s.writes);

/** Runs steps `from` to `to` on a server holding `state` (or nothing); from step `swapAt` on, the server holds the points km 0.x stored instead. */
async function run(state: QdrantState | undefined, from: number, to: number, swapAt = Number.POSITIVE_INFINITY) {
  const server = await startFakeQdrant(state ? structuredClone(state) : {});
  const dbs = new Map<Configuration, QdrantMemoryDb>();
  const open = (c: Configuration) => dbs.get(c) ?? dbs.set(c, new QdrantMemoryDb({ url: server.url, ...CONFIGURATIONS[c] })).get(c)!;
  const steps: Step[] = [];
  try {
    for (const [i, step] of STEPS.slice(from, to).entries()) {
      if (from + i === swapAt) {
        for (const name of Object.keys(server.state)) delete server.state[name];
        Object.assign(server.state, structuredClone(OLD.stored));
      }
      server.requests.length = 0;
      const output = await step.run(open(step.configuration));
      steps.push({ name: step.name, requests: server.seen(), output: JSON.parse(JSON.stringify(output ?? null)) });
    }
  } finally {
    await server.recorder.close();
  }
  return { steps, state: server.state };
}

/** A float as Qdrant keeps it (float32). */
const f32 = (x: number) => Math.fround(x);

/** Points compared as Qdrant holds them: ids, payload fields and values exact; vectors as float32 (±1 ulp of normalisation); norms to float32 precision. */
function expectSamePoints(actual: StoredPoint[], expected: StoredPoint[]): void {
  const byId = (points: StoredPoint[]) => [...points].sort((a, b) => String(a.id).localeCompare(String(b.id)));
  const a = byId(actual);
  const e = byId(expected);
  expect(a.map((p) => p.id)).toEqual(e.map((p) => p.id));
  for (const [i, p] of a.entries()) {
    const q = e[i]!;
    const { norm, ...payload } = p.payload;
    const { norm: oldNorm, ...oldPayload } = q.payload;
    expect(payload).toEqual(oldPayload);
    expect(Object.keys(p.payload).sort()).toEqual(Object.keys(q.payload).sort());
    expect(typeof norm).toBe('number');
    expect(norm as number).toBeCloseTo(oldNorm as number, 6);
    expect(Array.isArray(p.vector)).toBe(true);
    const v = (p.vector as number[]).map(f32);
    const w = (q.vector as number[]).map(f32);
    expect(v.length).toBe(w.length);
    for (const [j, x] of v.entries()) expect(Math.abs(x - w[j]!)).toBeLessThanOrEqual(2 ** -23);
  }
}

function expectSameState(actual: QdrantState, expected: QdrantState): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, collection] of Object.entries(expected)) {
    expect(actual[name]!.vectors).toEqual(collection.vectors);
    expect(actual[name]!.payloadIndexes).toEqual(collection.payloadIndexes);
    expectSamePoints(actual[name]!.points, collection.points);
  }
}

/** Every set of the tags the scenario's filters name, as points: two filters select the same points of it when they mean the same. */
const TAGS = ['user:alice', 'user:bob', 'user:carol', 'type:news', 'type:draft', 'flag', 'sp ace:a:b'];
const UNIVERSE = Array.from({ length: 2 ** TAGS.length }, (_, n) => ({ id: n, payload: { tags: TAGS.filter((_, i) => n & (2 ** i)) } }));

/** The payload keys a filter reads. */
function keysOf(filter: unknown): string[] {
  if (filter === null || typeof filter !== 'object') return [];
  if ('key' in filter) return [String((filter as { key: unknown }).key)];
  return Object.values(filter).flatMap((v) => (Array.isArray(v) ? v.flatMap(keysOf) : []));
}

function expectSameFilter(actual: unknown, expected: unknown): void {
  expect(keysOf(actual)).toEqual(expect.arrayContaining([...new Set(keysOf(expected))]));
  expect(new Set(keysOf(actual))).toEqual(new Set(keysOf(expected)));
  const select = (f: unknown) => UNIVERSE.filter((p) => matches(p, f as Record<string, unknown> | undefined)).map((p) => p.id);
  expect(select(actual)).toEqual(select(expected));
  // Beyond the same semantics, today's filters are km 0.x's, shape for shape.
  expect(actual).toEqual(expected);
}

/**
 * The requests of a step, compared with km 0.x's. Known differences: reads of a collection's
 * definition (GET /collections/{c}) may be repeated (MemoryDb and the typed driver each check the
 * vector size); `score_threshold` is not sent (MemoryDb drops results under minRelevance, as it
 * always did: the same results); vectors are sent as float32 values (the floats Qdrant stores) and norms computed from them.
 */
function expectSameRequests(actual: SeenRequest[], expected: SeenRequest[]): void {
  const isDefinitionRead = (r: SeenRequest) => r.method === 'GET' && /^\/collections\/[^/]+$/.test(r.path);
  const a = actual.filter((r) => !isDefinitionRead(r));
  const e = expected.filter((r) => !isDefinitionRead(r));
  expect(a.map((r) => `${r.method} ${r.path}`)).toEqual(e.map((r) => `${r.method} ${r.path}`));
  expect(actual.some(isDefinitionRead)).toBe(expected.some(isDefinitionRead));
  for (const [i, r] of a.entries()) {
    const old = e[i]!;
    const body = { ...(r.json as Record<string, unknown> | undefined) };
    const oldBody = { ...(old.json as Record<string, unknown> | undefined) };
    delete oldBody.score_threshold;
    if ('filter' in body || 'filter' in oldBody) {
      expectSameFilter(body.filter, oldBody.filter);
      delete body.filter;
      delete oldBody.filter;
    }
    if (Array.isArray(body.points) && typeof (body.points as unknown[])[0] === 'object') {
      expectSamePoints(
        (body.points as StoredPoint[]).map((p) => ({ ...p, vector: (p.vector as number[]).map(f32) })),
        (oldBody.points as StoredPoint[]).map((p) => ({ ...p, vector: (p.vector as number[]).map(f32) })),
      );
      delete body.points;
      delete oldBody.points;
    }
    expect(body).toEqual(oldBody);
  }
}

describe('collections written by km 0.x open unchanged', () => {
  it('(a) the writes store the same points: ids, payload fields (id, tags, payload as an object, norm), one unnamed cosine vector, the tags index', async () => {
    const { steps, state } = await run(undefined, 0, firstRead);
    expectSameState(state, OLD.stored);
    for (const [i, step] of steps.entries()) expect(step.output, step.name).toEqual(OLD.steps[i]!.output);
  });

  it('(b) the points km 0.x stored read back into the same records, scores, listings and index lists; deletes leave the same points', async () => {
    const { steps, state } = await run(OLD.stored, firstRead, STEPS.length);
    for (const [i, step] of steps.entries()) expect(step.output, step.name).toEqual(OLD.steps[firstRead + i]!.output);
    expectSameState(state, OLD.final);
  });

  it('(c) every step sends the same requests (filters: the same points selected on tags)', async () => {
    // One set of memory DBs throughout, as when the fixture was made (they cache vector sizes).
    const { steps } = await run(undefined, 0, STEPS.length, firstRead);
    for (const [i, step] of steps.entries()) {
      expect(step.name).toBe(OLD.steps[i]!.name);
      try {
        expectSameRequests(step.requests, OLD.steps[i]!.requests);
      } catch (error) {
        throw new Error(`step "${step.name}": ${(error as Error).message}`);
      }
    }
  });
});
