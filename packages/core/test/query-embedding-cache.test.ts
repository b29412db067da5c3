import { describe, expect, it } from 'vitest';
import { QueryEmbeddingCache, embedQuery, queryEmbeddingCacheOf } from '../src/ai/query-embedding-cache.js';
import { GatedEmbeddingGenerator, nextTurn, outcome } from './query-embedding-fakes.js';

describe('QueryEmbeddingCache: repeated queries', () => {
  it('runs the model once for a text asked again, and says purpose "query"', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    const cache = new QueryEmbeddingCache(model);
    const first = await cache.embed('moon landing');
    const second = await cache.embed('moon landing');
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]!.purpose).toBe('query');
    expect([...second]).toEqual([...first]);
    expect([...first]).toEqual([12, 0, 1]);
  });

  it('shares one embedding between concurrent callers of the same text', async () => {
    const model = new GatedEmbeddingGenerator();
    const cache = new QueryEmbeddingCache(model);
    const pending = [cache.embed('same'), cache.embed('same'), cache.embed('same')];
    await nextTurn();
    model.open();
    const vectors = await Promise.all(pending);
    expect(model.calls.map((c) => c.texts)).toEqual([['same']]);
    expect(new Set(vectors).size).toBe(3); // each caller its own array
  });

  it('one cache per generator instance through queryEmbeddingCacheOf and embedQuery', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    const other = new GatedEmbeddingGenerator(8, false);
    expect(queryEmbeddingCacheOf(model)).toBe(queryEmbeddingCacheOf(model));
    await embedQuery(model, 'x');
    await embedQuery(model, 'x');
    await embedQuery(other, 'x');
    expect(model.calls).toHaveLength(1);
    expect(other.calls).toHaveLength(1);
  });

  it('cache: false calls the model every time', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    await embedQuery(model, 'x', undefined, false);
    await embedQuery(model, 'x', undefined, false);
    expect(model.calls).toHaveLength(2);
  });
});

describe('QueryEmbeddingCache: batching', () => {
  it('sends concurrent distinct queries in one call', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const pending = ['a', 'bb', 'ccc', 'dddd', 'eeeee'].map((t) => cache.embed(t));
    await nextTurn();
    model.open();
    const vectors = await Promise.all(pending);
    expect(model.calls.map((c) => c.texts)).toEqual([['a', 'bb', 'ccc', 'dddd', 'eeeee']]);
    expect(vectors.map((v) => v[0])).toEqual([1, 2, 3, 4, 5]);
  });

  it('never sends more than maxBatchSize texts in one call', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const texts = Array.from({ length: 20 }, (_, i) => `query ${i}`);
    const pending = texts.map((t) => cache.embed(t));
    await nextTurn();
    model.open();
    const vectors = await Promise.all(pending);
    expect(model.calls.map((c) => c.texts.length)).toEqual([8, 8, 4]);
    expect(model.calls.flatMap((c) => c.texts)).toEqual(texts);
    expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => t.length));
  });

  it('sends one text per call when the generator states no maxBatchSize', async () => {
    const model = new GatedEmbeddingGenerator(null);
    const cache = new QueryEmbeddingCache(model);
    const pending = ['a', 'b', 'c'].map((t) => cache.embed(t));
    await nextTurn();
    model.open();
    await Promise.all(pending);
    expect(model.calls.map((c) => c.texts)).toEqual([['a'], ['b'], ['c']]);
  });

  it('queries arriving while a call runs go together in the next call', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const first = cache.embed('first');
    await nextTurn();
    expect(model.calls).toHaveLength(1);
    const later = ['b', 'c', 'd'].map((t) => cache.embed(t));
    await nextTurn();
    expect(model.calls).toHaveLength(1); // waiting for the running call
    model.open();
    await first;
    await nextTurn();
    model.open();
    await Promise.all(later);
    expect(model.calls.map((c) => c.texts)).toEqual([['first'], ['b', 'c', 'd']]);
  });
});

describe('QueryEmbeddingCache: aborts', () => {
  it('rejects an aborted caller at once with its reason; the call goes on for the others', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const controller = new AbortController();
    const aborted = outcome(cache.embed('gone', controller.signal));
    const kept = cache.embed('kept');
    await nextTurn();
    const reason = new Error('user left');
    controller.abort(reason);
    expect((await aborted).error).toBe(reason); // settled before the model answered
    expect(model.calls[0]!.signal!.aborted).toBe(false);
    model.open();
    expect((await kept)[0]).toBe(4);
    // The answer for the aborted caller's text is kept all the same.
    await cache.embed('gone');
    expect(model.calls).toHaveLength(1);
  });

  it('a caller sharing a text with an aborted caller still gets the vector', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const controller = new AbortController();
    const aborted = outcome(cache.embed('same', controller.signal));
    const kept = cache.embed('same');
    await nextTurn();
    controller.abort();
    expect((await aborted).error).toBeInstanceOf(DOMException);
    model.open();
    expect((await kept)[0]).toBe(4);
  });

  it('aborts the call only when all its callers aborted', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const [c1, c2] = [new AbortController(), new AbortController()];
    const r1 = outcome(cache.embed('one', c1.signal));
    const r2 = outcome(cache.embed('two', c2.signal));
    await nextTurn();
    c1.abort();
    expect(model.calls[0]!.signal!.aborted).toBe(false);
    c2.abort();
    expect(model.calls[0]!.signal!.aborted).toBe(true);
    expect((await r1).error).toBe(c1.signal.reason);
    expect((await r2).error).toBe(c2.signal.reason);
    // Nothing kept: the next caller runs the model again.
    const again = cache.embed('one');
    await nextTurn();
    model.open();
    expect((await again)[0]).toBe(3);
    expect(model.calls).toHaveLength(2);
  });

  it('drops a queued text whose only caller aborted before it was sent', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const controller = new AbortController();
    const aborted = outcome(cache.embed('never', controller.signal));
    const kept = cache.embed('kept');
    controller.abort();
    expect((await aborted).error).toBe(controller.signal.reason);
    await nextTurn();
    model.open();
    await kept;
    expect(model.calls.map((c) => c.texts)).toEqual([['kept']]);
  });

  it('refuses an already aborted signal without calling the model', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    const cache = new QueryEmbeddingCache(model);
    await cache.embed('x');
    const reason = new Error('already');
    await expect(cache.embed('x', AbortSignal.abort(reason))).rejects.toBe(reason);
    await expect(cache.embed('y', AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(model.calls).toHaveLength(1);
  });
});

describe('QueryEmbeddingCache: failures, eviction, copies', () => {
  it('rejects every caller of a failed call with its error (after one retry per text) and keeps nothing', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    const cache = new QueryEmbeddingCache(model);
    const failure = new Error('model down');
    model.failWith = failure;
    const results = await Promise.all([outcome(cache.embed('a')), outcome(cache.embed('b')), outcome(cache.embed('a'))]);
    expect(results.map((r) => r.error)).toEqual([failure, failure, failure]);
    expect(model.calls.map((c) => c.texts)).toEqual([['a', 'b'], ['a'], ['b']]);
    model.failWith = undefined;
    expect((await cache.embed('a'))[0]).toBe(1);
    expect(model.calls).toHaveLength(4);
  });

  it('evicts the least recently used text beyond maxEntries', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    const cache = new QueryEmbeddingCache(model, { maxEntries: 2 });
    await cache.embed('a');
    await cache.embed('b');
    await cache.embed('a'); // a is now the most recently used
    await cache.embed('c'); // evicts b
    expect(cache.size).toBe(2);
    expect(model.textsSent).toBe(3);
    await cache.embed('a');
    await cache.embed('c');
    expect(model.textsSent).toBe(3);
    await cache.embed('b');
    expect(model.textsSent).toBe(4);
  });

  it('evicts beyond maxFloats', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    const cache = new QueryEmbeddingCache(model, { maxEntries: 100, maxFloats: 7 }); // two 3-number vectors
    for (const t of ['a', 'b', 'c']) await cache.embed(t);
    expect(cache.size).toBe(2);
    await cache.embed('a');
    expect(model.textsSent).toBe(4);
  });

  it('resizing evicts what no longer fits', async () => {
    const model = new GatedEmbeddingGenerator(8, false);
    const cache = queryEmbeddingCacheOf(model);
    for (const t of ['a', 'b', 'c']) await cache.embed(t);
    queryEmbeddingCacheOf(model, { maxEntries: 1 });
    expect(cache.size).toBe(1);
    await cache.embed('c');
    expect(model.textsSent).toBe(3);
  });

  it('a caller changing its vector changes neither the cache nor other callers', async () => {
    const model = new GatedEmbeddingGenerator(8);
    const cache = new QueryEmbeddingCache(model);
    const pending = [cache.embed('abc'), cache.embed('abc')];
    await nextTurn();
    model.open();
    const [v1, v2] = await Promise.all(pending);
    v1!.fill(-7);
    expect([...v2!]).toEqual([3, 0, 1]);
    const v3 = await cache.embed('abc');
    expect([...v3]).toEqual([3, 0, 1]);
    v3.fill(9);
    expect([...(await cache.embed('abc'))]).toEqual([3, 0, 1]);
    expect(model.calls).toHaveLength(1);
  });
});
