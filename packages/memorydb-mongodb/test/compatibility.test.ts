import { readFile } from 'node:fs/promises';
import { BSON, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoDbMemoryDb } from '../src/index.js';
import { type FixtureCommand, READS, runSteps, type Step, WRITES } from './fixtures/compat-scenario.js';
import { CompatServer, matches } from './fixtures/compat-server.js';
import { type MongoWireRecorder, startMongoWireRecorder } from './mongo-wire-recorder.js';

// Data written by km 0.x's MongoDB memory DB opens unchanged. `fixtures/km-mongodb-v0.json` holds
// what that driver sent through the official `mongodb` driver (every command, canonical extended
// JSON), the documents and search index a server then held, and the results of its reads
// (`make-compat-fixture.ts`). Today's MongoDbMemoryDb must (a) store the same documents and
// search index for the same calls, (b) read the recorded documents back into identical records,
// and (c) send equivalent writes, searches and listings: the same filter semantics on `tags`
// (evaluated on every combination of the tags involved), exact where the shape allows.
// Existence probes (`listCollections`, `$listSearchIndexes`) are not compared: how often a
// version checks that a collection exists is not part of the stored data.

interface Fixture {
  writes: { outputs: Record<string, unknown>; commands: Record<string, FixtureCommand[]> };
  stored: Record<string, unknown[]>;
  searchIndexes: Record<string, unknown>;
  reads: { outputs: Record<string, unknown>; commands: Record<string, FixtureCommand[]> };
}

const fixture = JSON.parse(await readFile(new URL('./fixtures/km-mongodb-v0.json', import.meta.url), 'utf8')) as Fixture;
const { EJSON } = BSON;

let recorder: MongoWireRecorder;
beforeAll(async () => {
  recorder = await startMongoWireRecorder();
});
afterAll(async () => recorder.close());

async function run(steps: Step[], server: CompatServer) {
  recorder.answer = server.answer;
  const db = new MongoDbMemoryDb({ url: recorder.url, batchSize: 2, indexReadyTimeoutMs: 10_000 });
  try {
    return await runSteps(steps, db, recorder);
  } finally {
    await db.close();
  }
}

/** A command's body with JavaScript values (numbers, not `{ $numberDouble }`). */
const plain = (command: FixtureCommand): Document => EJSON.deserialize(command.command, { relaxed: true }) as Document;

/** The commands that read or change data (not existence probes), reduced to what they mean; filters set apart. */
function essentials(commands: FixtureCommand[]): { shapes: unknown[]; filters: Document[] } {
  const shapes: unknown[] = [];
  const filters: Document[] = [];
  for (const command of commands) {
    const c = plain(command);
    switch (command.name) {
      case 'create':
      case 'drop':
        shapes.push({ [command.name]: c[command.name], $db: c.$db });
        break;
      case 'createSearchIndexes':
        shapes.push({ createSearchIndexes: c.createSearchIndexes, indexes: c.indexes, $db: c.$db });
        break;
      case 'update':
        // The stored document is the replacement with `_id` from the filter: an `_id` in the replacement is the same document.
        shapes.push({
          update: c.update,
          ordered: c.ordered,
          // Canonical JSON keeps the BSON type of every value (doubles stay doubles).
          updates: (command.command.updates as Document[]).map(({ q, u, upsert }) => {
            const { _id, ...fields } = u as Document;
            return { q, u: fields, upsert };
          }),
        });
        break;
      case 'delete':
        // deleteOne({ _id }) and deleteMany({ _id: { $in: [id] } }) delete the same document.
        shapes.push({
          delete: c.delete,
          ids: (c.deletes as Document[]).flatMap(({ q }) => (q._id?.$in as unknown[] | undefined) ?? [q._id]),
        });
        break;
      case 'find':
        filters.push((c.filter as Document) ?? {});
        shapes.push({ find: c.find, sort: c.sort, limit: c.limit, fields: projected(c.projection as Document | undefined) });
        break;
      case 'aggregate': {
        const [first, ...rest] = c.pipeline as Document[];
        if ('$listSearchIndexes' in first!) break;
        if ('$vectorSearch' in first!) {
          const { filter, ...search } = first.$vectorSearch as Document;
          filters.push((filter as Document) ?? {});
          const project = (rest[0]?.$project ?? {}) as Document;
          shapes.push({ aggregate: c.aggregate, $vectorSearch: search, $project: project });
        } else shapes.push({ aggregate: c.aggregate, pipeline: c.pipeline });
        break;
      }
      default:
        break; // listCollections: existence probes and listings, compared through the results
    }
  }
  return { shapes, filters };
}

/** The km fields a projection returns of a km document (`{ embedding: 0 }` and `{ tags: 1, payload: 1 }` return the same). */
function projected(projection: Document | undefined): string[] {
  const all = ['_id', 'embedding', 'tags', 'payload'];
  const entries = Object.entries(projection ?? {});
  if (entries.length === 0) return all;
  if (entries.every(([, v]) => v === 0)) return all.filter((f) => !entries.some(([k]) => k === f));
  return all.filter((f) => f === '_id' || entries.some(([k, v]) => k === f && v === 1));
}

/** Every combination of the tags a filter names (and a document without `tags`), so two filters can be compared by what they select. */
function universe(...filters: Document[]): Document[] {
  const tags = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') tags.add(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  filters.forEach(walk);
  const list = [...tags, 'other:tag'];
  const docs: Document[] = [{ _id: 'no tags field' }];
  for (let mask = 0; mask < 1 << list.length; mask++) docs.push({ _id: mask, tags: list.filter((_, i) => mask & (1 << i)) });
  return docs;
}

function expectSameCommands(actual: Record<string, FixtureCommand[]>, expected: Record<string, FixtureCommand[]>) {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const [step, commands] of Object.entries(expected)) {
    const was = essentials(commands);
    const now = essentials(actual[step]!);
    expect(now.shapes, step).toEqual(was.shapes);
    expect(now.filters.length, step).toBe(was.filters.length);
    was.filters.forEach((old, i) => {
      const filter = now.filters[i]!;
      for (const doc of universe(old, filter)) expect(matches(filter, doc), `${step}: ${JSON.stringify(doc)}`).toBe(matches(old, doc));
      // Without NOT the filter is the same object; NOT may be spelled `$nin` or `$nor` of `$eq` (the same semantics).
      if (!JSON.stringify(old).includes('$nin')) expect(filter, step).toEqual(old);
    });
  }
}

describe('MongoDbMemoryDb opens what km 0.x wrote (fixtures/km-mongodb-v0.json)', () => {
  it('(a) the same calls store the same documents (ids, fields, BSON types) and search index, with the same results', async () => {
    const server = new CompatServer();
    const { outputs, commands } = await run(WRITES, server);
    expect(outputs).toEqual(fixture.writes.outputs);
    expect(server.snapshot()).toEqual(fixture.stored);
    // Field order too (toEqual ignores it): `_id`, `embedding`, `tags`, `payload`, and the payload's keys as given.
    expect(JSON.stringify(server.snapshot())).toBe(JSON.stringify(fixture.stored));
    expect(server.indexDefinitions()).toEqual(fixture.searchIndexes);
    expectSameCommands(commands, fixture.writes.commands);
  });

  it('(b) reads the stored documents back into identical records, searches and listings', async () => {
    const server = new CompatServer();
    server.load(fixture.stored, fixture.searchIndexes);
    const { outputs } = await run(READS, server);
    for (const [read, expected] of Object.entries(fixture.reads.outputs)) expect(outputs[read], read).toEqual(expected);
    expect(Object.keys(outputs)).toEqual(Object.keys(fixture.reads.outputs));
  });

  it('(c) sends equivalent searches and listings (same filter semantics on tags, same limits, candidates and projections)', async () => {
    const server = new CompatServer();
    server.load(fixture.stored, fixture.searchIndexes);
    const { commands } = await run(READS, server);
    expectSameCommands(commands, fixture.reads.commands);
  });
});
