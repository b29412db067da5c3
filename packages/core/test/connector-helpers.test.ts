import { describe, expect, it } from 'vitest';
import { checkBatchForIndex, checkVectorRecord, decodeTags, encodeTags, isKmError, rankResults, type MemoryRecord } from '../src/index.js';

describe('helpers shared by connectors', () => {
  it('key:value tag encoding round-trips several values, null and empty values, colons in values', () => {
    const tags = { url: ['http://x:80/a'], empty: [''], none: [null], multi: ['a', 'b'] };
    expect(encodeTags(tags)).toEqual(['url:http://x:80/a', 'empty:', 'none', 'multi:a', 'multi:b']);
    expect(decodeTags(encodeTags(tags))).toEqual(tags);
  });

  it('checkBatchForIndex refuses a vector of another size and keeps the last record of a repeated id', () => {
    const rec = (id: string, vector: number[], text: string) => checkVectorRecord({ id, vector, tags: {}, payload: { text } }, 'test');
    const unique = checkBatchForIndex([rec('a', [1, 0], 'first'), rec('b', [0, 1], 'b'), rec('a', [1, 1], 'second')], 2, 'idx', 'test');
    expect(unique.map((r) => [r.id, JSON.parse(r.payloadJson).text])).toEqual([
      ['a', 'second'],
      ['b', 'b'],
    ]);
    expect(() => checkBatchForIndex([rec('a', [1, 0, 0], 'x')], 2, 'idx', 'test')).toThrow(expect.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch')));
  });

  it('rankResults orders by relevance, then by id', () => {
    const r = (id: string): MemoryRecord => ({ id, vector: [], tags: {}, payload: {} });
    const ranked = rankResults([[r('b'), 0.5], [r('c'), 0.9], [r('a'), 0.5]]);
    expect(ranked.map(([x, s]) => `${x.id}:${s}`)).toEqual(['c:0.9', 'a:0.5', 'b:0.5']);
  });
});

describe('indexNamesUnderPrefix and withTimeout', () => {
  it('keeps the normalised names under the prefix, without it, sorted and once', async () => {
    const { indexNamesUnderPrefix } = await import('../src/index.js');
    expect(indexNamesUnderPrefix(['km-b', 'km-a', 'other', 'km-A.b', 'km-a', 'km-'], 'km-')).toEqual(['a', 'b']);
    expect(indexNamesUnderPrefix(['notes', 'Bad Name'], '')).toEqual(['notes']);
  });

  it('withTimeout settles with the promise, or rejects with the given error at the deadline', async () => {
    const { withTimeout } = await import('../src/index.js');
    await expect(withTimeout(Promise.resolve(7), 1000, () => new Error('late'))).resolves.toBe(7);
    await expect(withTimeout(new Promise(() => undefined), 10, () => new Error('late'))).rejects.toThrow('late');
  });
});
