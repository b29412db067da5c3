import { isKmError } from '@km/core';
import type { Document } from 'mongodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MongoDbMemoryDb } from '../src/index.js';
import { AtlasLikeServer, isStage } from './atlas-like-server.js';
import { cursorReply, errorReply, type MongoWireRecorder, type RecordedCommand, startMongoWireRecorder } from './mongo-wire-recorder.js';

// What the connector does when the server's state moves under it (a collection dropped between
// two calls, a concurrent index creator), when a caller aborts, and when createIndex meets a
// server without vector search. The wire recorder answers like Atlas would; it checks the
// connector's command sequence and error handling, not search results.
let recorder: MongoWireRecorder;
let atlas: AtlasLikeServer;
let dbs: MongoDbMemoryDb[] = [];
/** Releases replies held back by a test (so no connection is left waiting). */
let release: Array<() => void> = [];

beforeAll(async () => {
  recorder = await startMongoWireRecorder();
});
afterAll(async () => {
  await recorder.close();
});
beforeEach(() => {
  recorder.commands.length = 0;
  atlas = new AtlasLikeServer();
  recorder.answer = atlas.answer;
});
afterEach(async () => {
  for (const go of release) go();
  release = [];
  for (const db of dbs) await db.close();
  dbs = [];
});

const open = () => {
  const db = new MongoDbMemoryDb({ url: recorder.url, indexReadyTimeoutMs: 5_000 });
  dbs.push(db);
  return db;
};
const sent = (name: string) => recorder.commands.filter((c) => c.name === name);
const collect = async <T>(items: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};
/** Answers `command`s that `holds` with the fake server's reply, but only once the test releases it. */
const holdReplies = (holds: (command: RecordedCommand) => boolean) => {
  recorder.answer = (command) => {
    if (!holds(command)) return atlas.answer(command);
    return new Promise<Document | undefined>((resolve) => release.push(() => resolve(atlas.answer(command))));
  };
};
const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
};
/** What a pending promise settles to within `ms`: its value, its error, or 'still pending'. */
const settledWithin = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise<'still pending'>((resolve) => setTimeout(() => resolve('still pending'), ms)),
  ]);

describe('a collection dropped between the two calls of vectorSize', () => {
  it('listCollections lists it, $listSearchIndexes says NamespaceNotFound: reads yield nothing, upserts throw index_not_found', async () => {
    atlas.existing('km-i', 2);
    recorder.answer = (command) =>
      isStage(command, '$listSearchIndexes')
        ? errorReply(26, 'NamespaceNotFound', 'Collection km.km-i does not exist')
        : atlas.answer(command);
    const db = open();
    expect(await collect(db.getList('i'))).toEqual([]);
    expect(await collect(db.getSimilarList('i', [1, 0]))).toEqual([]);
    await db.delete('i', { id: 'a' });
    await expect(db.upsert('i', { id: 'a', vector: [1, 0], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'index_not_found'),
    );
    expect(sent('find')).toHaveLength(0);
    expect(sent('delete')).toHaveLength(0);
  });
});

describe('createIndex racing another creator', () => {
  /** createSearchIndexes fails as the loser's does; the winner's index (of `size`) is listed one listing later. */
  const loseTheRace = (size: number, refusal: Document) => {
    let hiddenListings = 1;
    let lost = false;
    recorder.answer = (command) => {
      if (command.name === 'createSearchIndexes') {
        lost = true;
        return refusal;
      }
      if (lost && isStage(command, '$listSearchIndexes') && !atlas.searchIndexes.has('km-i')) {
        if (hiddenListings-- > 0) return cursorReply('km.km-i', []);
        atlas.searchIndexes.set('km-i', { size, buildingFor: 1 });
      }
      return atlas.answer(command);
    };
  };

  it.each([
    ['code 68 IndexAlreadyExists', errorReply(68, 'IndexAlreadyExists', 'Index already exists with a different name: km_vector')],
    ['a message saying it already exists', errorReply(8, 'UnknownError', 'Duplicate Index: index "km_vector" already exists')],
  ])('%s: the winner index is waited for and kept', async (_, refusal) => {
    loseTheRace(3, refusal);
    const db = open();
    await db.createIndex('i', 3);
    expect(sent('createSearchIndexes')).toHaveLength(1);
    await db.upsert('i', { id: 'a', vector: [1, 0, 0], tags: {}, payload: {} });
    expect(sent('update')).toHaveLength(1);
  });

  it("the winner's index of another size is vector_size_mismatch", async () => {
    loseTheRace(4, errorReply(68, 'IndexAlreadyExists', 'Index already exists'));
    await expect(open().createIndex('i', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
  });

  it('another createSearchIndexes failure is still thrown', async () => {
    recorder.answer = (command) =>
      command.name === 'createSearchIndexes' ? errorReply(2, 'BadValue', 'numDimensions must be positive') : atlas.answer(command);
    await expect(open().createIndex('i', 3)).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'upstream_error') && /numDimensions/.test(String(e)),
    );
  });
});

describe('aborts', () => {
  it('getSimilarList: the abort reason comes back untouched, not wrapped as upstream_error', async () => {
    atlas.existing('km-i', 2);
    holdReplies((command) => isStage(command, '$vectorSearch'));
    const controller = new AbortController();
    const search = collect(open().getSimilarList('i', [1, 0], { signal: controller.signal }));
    await until(() => recorder.commands.some((c) => isStage(c, '$vectorSearch')));
    controller.abort();
    expect(await settledWithin(search, 2_000)).toStrictEqual({ error: controller.signal.reason });
    expect(((await settledWithin(search, 0)) as { error: unknown }).error).toBe(controller.signal.reason);
  });

  it('getList: the signal reaches find, so an abort ends a listing whose reply has not come', async () => {
    atlas.existing('km-i', 2);
    holdReplies((command) => command.name === 'find');
    const controller = new AbortController();
    const listing = collect(open().getList('i', { signal: controller.signal }));
    await until(() => sent('find').length === 1);
    controller.abort();
    expect(await settledWithin(listing, 2_000)).toStrictEqual({ error: controller.signal.reason });
    expect(((await settledWithin(listing, 0)) as { error: unknown }).error).toBe(controller.signal.reason);
  });
});

describe('createIndex on a server without vector search', () => {
  it('drops the collection it has just created, so no empty km index is left behind', async () => {
    recorder.answer = (command) =>
      isStage(command, '$listSearchIndexes')
        ? errorReply(40324, 'Location40324', "Unrecognized pipeline stage name: '$listSearchIndexes'")
        : atlas.answer(command);
    const db = open();
    await expect(db.createIndex('i', 2)).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
    expect(sent('create').map((c) => c.command.create)).toEqual(['km-i']);
    expect(sent('drop').map((c) => c.command.drop)).toEqual(['km-i']);
    expect(await db.getIndexes()).toEqual([]);
  });

  it('leaves a collection that was there before alone', async () => {
    atlas.collections.add('km-i');
    recorder.answer = (command) =>
      isStage(command, '$listSearchIndexes')
        ? errorReply(6047401, 'Location6047401', '$listSearchIndexes stage is only allowed on MongoDB Atlas')
        : atlas.answer(command);
    await expect(open().createIndex('i', 2)).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
    expect(sent('drop')).toHaveLength(0);
  });
});
