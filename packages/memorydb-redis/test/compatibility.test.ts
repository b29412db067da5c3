import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisMemoryDb } from '../src/index.js';
import {
  argOf,
  CONFIGURATIONS,
  type Fixture,
  type FixtureArg,
  type FixtureStep,
  HANDSHAKE,
  reads,
  runScenario,
  stateOf,
  storeOf,
} from './fixtures/compat-scenario.js';
import { atomsOf, type FakeQueryEngine, matches, parseQuery, splitKnn, startFakeQueryEngine } from './fixtures/fake-query-engine.js';

// Data written by km 0.x's Redis memory DB driver opens unchanged. The fixture
// (`fixtures/km-redis-v0.json`, made by `fixtures/make-compat-fixture.ts` with that driver)
// holds, for each configuration, the commands node-redis sent for every step of the scenario,
// what each step returned, and what the server held after the writes. Today's RedisMemoryDb,
// on the same fake Query Engine, must (a) store the same hashes, keys and search indexes with
// the same commands, (b) read the stored data back into the same records and scores, and
// (c) send searches and listings with the same filter semantics on the same fields.
const fixture = JSON.parse(await readFile(new URL('./fixtures/km-redis-v0.json', import.meta.url), 'utf8')) as Fixture;

const WRITES = new Set(['FT.CREATE', 'FT.DROPINDEX', 'MULTI', 'EXEC', 'DEL', 'HSET', 'SET']);
/** Reads that may be sent more or less often than before (they change nothing). */
const FREE_READS = new Set(['FT.INFO', 'GET', 'FT._LIST']);
const text = (arg: FixtureArg): string => (typeof arg === 'string' ? arg : `base64:${arg.base64}`);
const nameOf = (command: FixtureArg[]) => text(command[0]!).toUpperCase();

/** The options of an FT.SEARCH / FT.AGGREGATE after its query, by keyword (arguments as text). */
function optionsOf(command: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 3; i < command.length; i++) {
    const word = command[i]!;
    if (word === 'PARAMS' || word === 'RETURN' || word === 'LOAD') {
      const n = Number(command[i + 1]);
      out.set(word, command.slice(i + 2, i + 2 + n));
      i += 1 + n;
    } else if (word === 'LIMIT') {
      out.set(word, command.slice(i + 1, i + 3));
      i += 2;
    } else if (word === 'SORTBY') {
      out.set(word, command.slice(i + 1, i + 3));
      i += 2;
    } else if (word === 'DIALECT' || word === 'COUNT') {
      out.set(word, [command[i + 1]!]);
      i += 1;
    } else out.set(word, []);
  }
  return out;
}

/** Requires two RediSearch queries to select the same documents: equal on every assignment of their TAG atoms. */
function expectSameSemantics(actual: string, expected: string): void {
  const a = parseQuery(actual);
  const b = parseQuery(expected);
  const atoms = [...new Set([...atomsOf(a), ...atomsOf(b)])];
  expect(atoms.length).toBeLessThanOrEqual(12);
  for (let mask = 0; mask < 2 ** atoms.length; mask++) {
    const held = atoms.filter((_, i) => mask & (2 ** i));
    const tags = (attribute: string) => new Set(held.filter((h) => h.startsWith(`${attribute}\u0000`)).map((h) => h.split('\u0000')[1]!));
    expect(matches(a, tags), `${actual} vs ${expected} on ${JSON.stringify(held)}`).toBe(matches(b, tags));
  }
}

/** An FT.SEARCH sent today against the one recorded: same index, same KNN field, k, vector, fields, window and filter semantics. */
function expectSameSearch(actual: string[], expected: string[]): void {
  expect(actual[1]).toBe(expected[1]);
  const now = splitKnn(actual[2]!);
  const then = splitKnn(expected[2]!);
  expect(now.knn?.attribute).toBe(then.knn?.attribute);
  expect(now.knn?.k).toBe(then.knn?.k);
  expect(now.knn?.vec).toBe(then.knn?.vec);
  expectSameSemantics(now.filter, then.filter);
  const a = optionsOf(actual);
  const b = optionsOf(expected);
  expect(a.get('PARAMS')).toEqual(b.get('PARAMS'));
  expect(a.get('LIMIT')).toEqual(b.get('LIMIT'));
  expect(a.get('DIALECT')).toEqual(b.get('DIALECT'));
  // The distance's alias is the connector's own name; the hash fields read are the same.
  const fields = (options: Map<string, string[]>, alias: string | undefined) => options.get('RETURN')!.filter((f) => f !== alias);
  expect(fields(a, now.knn?.alias)).toEqual(fields(b, then.knn?.alias));
  // Sorted by the distance, nearest first, as KNN results come anyway.
  const sort = a.get('SORTBY');
  if (sort) expect(sort).toEqual([now.knn!.alias, 'ASC']);
}

/** An FT.AGGREGATE sent today against the one recorded: same index, fields loaded, cursor page and filter semantics. */
function expectSameAggregate(actual: string[], expected: string[]): void {
  expect(actual[1]).toBe(expected[1]);
  expectSameSemantics(actual[2]!, expected[2]!);
  const a = optionsOf(actual);
  const b = optionsOf(expected);
  for (const option of ['LOAD', 'DIALECT', 'WITHCURSOR', 'COUNT']) expect(a.get(option), option).toEqual(b.get(option));
}

function expectEquivalentCommands(step: string, actual: FixtureArg[][], expected: FixtureArg[][]): void {
  const writes = (commands: FixtureArg[][]) => commands.filter((c) => WRITES.has(nameOf(c)));
  expect(writes(actual), `writes of "${step}"`).toEqual(writes(expected));
  const kinds = (commands: FixtureArg[][], kind: string) => commands.filter((c) => nameOf(c) === kind).map((c) => c.map(text));
  const searches = kinds(actual, 'FT.SEARCH');
  const recordedSearches = kinds(expected, 'FT.SEARCH');
  expect(searches.length, `searches of "${step}"`).toBe(recordedSearches.length);
  searches.forEach((s, i) => expectSameSearch(s, recordedSearches[i]!));
  const aggregates = kinds(actual, 'FT.AGGREGATE');
  const recordedAggregates = kinds(expected, 'FT.AGGREGATE');
  expect(aggregates.length, `listings of "${step}"`).toBe(recordedAggregates.length);
  aggregates.forEach((s, i) => expectSameAggregate(s, recordedAggregates[i]!));
  expect(kinds(actual, 'FT.CURSOR'), `cursor reads of "${step}"`).toEqual(kinds(expected, 'FT.CURSOR'));
  // The same hashes read, with the same fields (pipelined, in any order).
  const sorted = (rows: string[][]) => rows.map((r) => JSON.stringify(r)).sort();
  expect(sorted(kinds(actual, 'HMGET')), `hashes read by "${step}"`).toEqual(sorted(kinds(expected, 'HMGET')));
  const known = new Set([...WRITES, ...FREE_READS, 'FT.SEARCH', 'FT.AGGREGATE', 'FT.CURSOR', 'HMGET']);
  expect(
    actual.map(nameOf).filter((n) => !known.has(n)),
    `other commands of "${step}"`,
  ).toEqual([]);
}

const opened: Array<{ db: RedisMemoryDb; fake: FakeQueryEngine }> = [];
afterEach(async () => {
  for (const { db, fake } of opened.splice(0)) {
    await db.close();
    await fake.close();
  }
});

async function open(
  name: string,
  state: Parameters<typeof startFakeQueryEngine>[0],
): Promise<{ db: RedisMemoryDb; fake: FakeQueryEngine }> {
  const fake = await startFakeQueryEngine(state);
  const db = new RedisMemoryDb({ url: fake.url, ...CONFIGURATIONS[name]!.options });
  opened.push({ db, fake });
  return { db, fake };
}

it('the fixture covers every configuration', () => {
  expect(Object.keys(fixture.configurations)).toEqual(Object.keys(CONFIGURATIONS));
});

for (const [name, recorded] of Object.entries(fixture.configurations)) {
  describe(`RedisMemoryDb keeps km 0.x's layout (${name})`, () => {
    it('writes the same hashes, keys and indexes, returns the same, and sends equivalent commands', async () => {
      const { db, fake } = await open(name, { reportDim: !recorded.oldServer });
      const steps: FixtureStep[] = [];
      let stored = storeOf(fake);
      await runScenario(
        db,
        async (step, fn) => {
          fake.commands.length = 0;
          const result = await fn();
          const commands = fake.commands.filter((c) => !HANDSHAKE.has(c.args[0]!.toUpperCase())).map((c) => c.raw.map(argOf));
          steps.push({ step, commands, result });
        },
        () => {
          stored = storeOf(fake);
        },
      );
      expect(stored).toEqual(recorded.stored);
      expect(steps.map((s) => s.step)).toEqual(recorded.steps.map((s) => s.step));
      steps.forEach((step, i) => {
        const then = recorded.steps[i]!;
        expect(step.result, step.step).toEqual(then.result);
        expectEquivalentCommands(step.step, step.commands, then.commands);
      });
    });

    it('reads the hashes km 0.x stored into the same records and scores', async () => {
      const { db } = await open(name, { ...stateOf(recorded.stored), reportDim: !recorded.oldServer });
      const expected = new Map(recorded.steps.map((s) => [s.step, s.result]));
      for (const [step, fn] of reads(db)) {
        let result: unknown;
        try {
          result = await fn();
        } catch (error) {
          result = { error: (error as { code?: string }).code ?? String(error) };
        }
        expect(result, step).toEqual(expected.get(step));
      }
    });
  });
}

it('a payload that is no JSON object (written by another program) reads as {}, as km 0.x read it', async () => {
  const create = fixture.configurations.default!.stored.indexes['km-notes']!;
  const hash = (id: string, payload: string) =>
    new Map([
      ['id', Buffer.from(id)],
      ['tags', Buffer.from('k:v')],
      ['payload', Buffer.from(payload)],
      ['embedding', Buffer.from(new Float32Array([1, 0, 0]).buffer)],
    ]);
  const { db } = await open('default', {
    indexes: new Map([['km-notes', create]]),
    hashes: new Map([
      ['km-notes:a', hash('a', 'not json')],
      ['km-notes:b', hash('b', '[1,2]')],
      ['km-notes:c', hash('c', '{"text":"ok"}')],
    ]),
  });
  const listed = [];
  for await (const r of db.getList('notes')) listed.push([r.id, r.payload]);
  expect(listed).toEqual([
    ['a', {}],
    ['b', {}],
    ['c', { text: 'ok' }],
  ]);
});
