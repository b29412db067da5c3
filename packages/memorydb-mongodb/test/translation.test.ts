import { isKmError } from '@km/core';
import { compareRecordIds } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import {
  checkCollectionPrefix,
  checkDatabaseName,
  collectionNameLimit,
  listRecords,
  numCandidatesFor,
  translateMongoError,
  waitUntilQueryable,
} from '../src/index.js';

// The helpers the package's one driver uses: candidates, listing order, names, readiness polling
// and error translation. (km's document mapping, search index and filters are the typed driver's:
// vector-store-km-layout.test.ts, vector-store-translation.test.ts, compatibility.test.ts.)
describe('search', () => {
  it('numCandidates: max(100, 10 × limit) by default, the option otherwise, never below the limit nor above 10000', () => {
    expect(numCandidatesFor(5, undefined)).toBe(100);
    expect(numCandidatesFor(50, undefined)).toBe(500);
    expect(numCandidatesFor(5000, undefined)).toBe(10_000);
    expect(numCandidatesFor(5, 40)).toBe(40);
    expect(numCandidatesFor(50, 10)).toBe(50);
    expect(numCandidatesFor(5, 99_999)).toBe(10_000);
  });
});

describe('listing order', () => {
  // A fake `find` sorted by MongoDB's string order (code points), to check the correction to km's UTF-16 order.
  const byCodePoint = (a: string, b: string) => {
    const [x, y] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  const fakeFind = (ids: string[], calls: object[]) => async (filter: object, limit: number | undefined) => {
    calls.push(filter);
    const wanted = (filter as { _id?: { $in: string[] } })._id?.$in;
    const sorted = ids.filter((id) => !wanted || wanted.includes(id)).sort(byCodePoint);
    return sorted.slice(0, limit ?? sorted.length).map((_id) => ({ _id }));
  };

  it('ids MongoDB and km order alike: one limited find', async () => {
    const calls: object[] = [];
    const docs = await listRecords({}, 2, {}, fakeFind(['c', 'a', 'b'], calls));
    expect(docs.map((d) => d._id)).toEqual(['a', 'b']);
    expect(calls).toHaveLength(1);
  });

  it('ids where the orders differ (U+FFFF against an emoji): the first ones in km order, read again by id', async () => {
    const ids = ['a\uffff', 'a😀', 'b'];
    expect(byCodePoint('a\uffff', 'a😀')).toBeLessThan(0);
    expect(compareRecordIds('a😀', 'a\uffff')).toBeLessThan(0);
    const calls: object[] = [];
    const docs = await listRecords({}, 1, {}, fakeFind(ids, calls));
    expect(docs.map((d) => d._id)).toEqual(['a😀']);
    expect(calls.at(-1)).toEqual({ _id: { $in: ['a😀'] } });
  });
});

describe('names', () => {
  it('checks database and prefix; the index name limit leaves room for the namespace', () => {
    expect(checkDatabaseName('km')).toBe('km');
    for (const bad of ['', 'a.b', 'a b', 'a$', 'x'.repeat(64)])
      expect(() => checkDatabaseName(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(checkCollectionPrefix('km-')).toBe('km-');
    for (const bad of ['a$', 'system.', 'a b'])
      expect(() => checkCollectionPrefix(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(collectionNameLimit('km', 'km-').bytes).toBe(255 - 3 - 3);
  });
});

describe('readiness', () => {
  it('polls until queryable; a failed build and a timeout are clear errors', async () => {
    const states = [
      { status: 'PENDING', queryable: false },
      { status: 'BUILDING', queryable: false },
      { status: 'READY', queryable: true },
    ];
    let reads = 0;
    await waitUntilQueryable(async () => states[reads++], { collection: 'km-x', timeoutMs: 5000, pollMs: 1 });
    expect(reads).toBe(3);
    await expect(
      waitUntilQueryable(async () => ({ status: 'FAILED', queryable: false, message: 'bad definition' }), {
        collection: 'km-x',
        timeoutMs: 5000,
        pollMs: 1,
      }),
    ).rejects.toSatisfy((e: unknown) => isKmError(e, 'upstream_error') && /bad definition/.test(String(e)));
    await expect(
      waitUntilQueryable(async () => ({ status: 'BUILDING', queryable: false }), { collection: 'km-x', timeoutMs: 20, pollMs: 5 }),
    ).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient') && /not queryable after 20 ms \(status BUILDING\)/.test(String(e)));
  });
});

describe('translateMongoError', () => {
  const server = (code: number, codeName: string, message: string) =>
    Object.assign(new Error(message), { name: 'MongoServerError', code, codeName });

  it('maps driver and server errors to typed km errors', () => {
    expect(isKmError(translateMongoError(server(18, 'AuthenticationFailed', 'Authentication failed.'), 'x'), 'unauthorized')).toBe(true);
    expect(isKmError(translateMongoError(server(13, 'Unauthorized', 'not authorized on km'), 'x'), 'unauthorized')).toBe(true);
    expect(isKmError(translateMongoError(server(26, 'NamespaceNotFound', 'ns not found'), 'x'), 'index_not_found')).toBe(true);
    const selection = translateMongoError(
      Object.assign(new Error('Server selection timed out'), { name: 'MongoServerSelectionError' }),
      'x',
    );
    expect(isKmError(selection, 'transient') && selection.transient).toBe(true);
    expect(
      isKmError(translateMongoError(Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoNetworkError' }), 'x'), 'transient'),
    ).toBe(true);
    expect(isKmError(translateMongoError(server(189, 'PrimarySteppedDown', 'stepped down'), 'x'), 'transient')).toBe(true);
    const limited = translateMongoError(server(462, 'IngressRequestRateLimitExceeded', 'rate limit'), 'x');
    expect(isKmError(limited, 'rate_limited') && limited.transient).toBe(true);
    const bulk = Object.assign(new Error('bulk failed'), {
      name: 'MongoBulkWriteError',
      writeErrors: [{ code: 13, errmsg: 'not authorized' }],
    });
    expect(isKmError(translateMongoError(bulk, 'x'), 'unauthorized')).toBe(true);
    const other = translateMongoError(server(2, 'BadValue', 'bad'), 'x');
    expect(isKmError(other, 'upstream_error') && !other.transient).toBe(true);
  });

  it("an abort (the driver throws the signal's AbortError, DOMException code 20) is returned untouched", () => {
    const controller = new AbortController();
    controller.abort();
    expect(translateMongoError(controller.signal.reason, 'x')).toBe(controller.signal.reason);
  });

  it('a server without vector search is a not_configured error naming what km needs, on every known server answer', () => {
    const answers = [
      server(
        31082,
        'SearchNotEnabled',
        'Using Atlas Search Database Commands and the $listSearchIndexes aggregation stage requires additional configuration.',
      ),
      server(6047400, 'Location6047400', '$vectorSearch stage is only allowed on MongoDB Atlas'),
      server(6047401, 'Location6047401', '$listSearchIndexes stage is only allowed on MongoDB Atlas'),
      server(40324, 'Location40324', "Unrecognized pipeline stage name: '$vectorSearch'"),
      server(59, 'CommandNotFound', "no such command: 'createSearchIndexes'"),
      server(115, 'CommandNotSupported', 'Search index commands are only supported with Atlas.'),
    ];
    for (const answer of answers) {
      const error = translateMongoError(answer, 'x');
      expect(isKmError(error, 'not_configured'), answer.message).toBe(true);
      expect(String(error)).toMatch(/Atlas.*mongodb-atlas-local.*8\.2\+ Community with mongot/);
    }
    expect(
      isKmError(translateMongoError(server(40324, 'Location40324', "Unrecognized pipeline stage name: '$foo'"), 'x'), 'not_configured'),
    ).toBe(false);
  });
});
