import { describe, expect, it } from 'vitest';
import { isKmError, type KmError, type MemoryRecord } from '../src/index.js';
import { checkBatchForIndex, checkQueueConnect, checkVectorRecord, type QueueClientState } from '../src/connector.js';
import { decodeTags, encodeTags, rankResults } from '../src/connector.js';

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
    expect(() => checkBatchForIndex([rec('a', [1, 0, 0], 'x')], 2, 'idx', 'test')).toThrow(
      expect.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch')),
    );
  });

  it('rankResults orders by relevance, then by id', () => {
    const r = (id: string): MemoryRecord => ({ id, vector: [], tags: {}, payload: {} });
    const ranked = rankResults([
      [r('b'), 0.5],
      [r('c'), 0.9],
      [r('a'), 0.5],
    ]);
    expect(ranked.map(([x, s]) => `${x.id}:${s}`)).toEqual(['c:0.9', 'a:0.5', 'b:0.5']);
  });
});

describe('indexNamesUnderPrefix and withTimeout', () => {
  it('keeps the normalised names under the prefix, without it, sorted and once', async () => {
    const { indexNamesUnderPrefix } = await import('../src/connector.js');
    expect(indexNamesUnderPrefix(['km-b', 'km-a', 'other', 'km-A.b', 'km-a', 'km-'], 'km-')).toEqual(['a', 'b']);
    expect(indexNamesUnderPrefix(['notes', 'Bad Name'], '')).toEqual(['notes']);
  });

  it('withTimeout settles with the promise, or rejects with the given error at the deadline', async () => {
    const { withTimeout } = await import('../src/connector.js');
    await expect(withTimeout(Promise.resolve(7), 1000, () => new Error('late'))).resolves.toBe(7);
    await expect(withTimeout(new Promise(() => undefined), 10, () => new Error('late'))).rejects.toThrow('late');
  });
});

describe('checkQueueConnect', () => {
  const names = { connector: 'demo-queue', className: 'DemoQueue' };
  const open: QueueClientState = { closed: false, connectedTo: undefined, hasHandler: true };

  it('lets a fresh client connect, to enqueue without a handler or to dequeue with one', () => {
    expect(() => checkQueueConnect({ ...open, hasHandler: false }, { dequeue: false }, names)).not.toThrow();
    expect(() => checkQueueConnect(open, { dequeue: true }, names)).not.toThrow();
  });

  it('refuses a closed client, a second connect, and dequeueing without a handler, with typed errors', () => {
    const refusal = (state: Partial<QueueClientState>, dequeue: boolean) => {
      try {
        checkQueueConnect({ ...open, ...state }, { dequeue }, names);
      } catch (error) {
        expect(isKmError(error, 'invalid_argument')).toBe(true);
        expect((error as KmError).connector).toBe('demo-queue');
        return (error as Error).message;
      }
      throw new Error('no refusal');
    };
    expect(refusal({ closed: true }, false)).toBe('[km] [demo-queue] this DemoQueue is closed');
    expect(refusal({ connectedTo: 'extract' }, false)).toBe('[km] [demo-queue] already connected to "extract"');
    expect(refusal({ hasHandler: false }, true)).toBe('[km] [demo-queue] call onDequeue before connect({ dequeue: true })');
  });
});
