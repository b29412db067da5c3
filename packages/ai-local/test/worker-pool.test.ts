import { describe, expect, it } from 'vitest';
import { HIGH_PRIORITY_STREAK, WorkerPool } from '../src/index.js';

const script = new URL('./fixtures/scripted-worker.mjs', import.meta.url);
type Reply = { value: number; thread: number };
type ScriptedPool = WorkerPool<number | string, Reply>;

/** Runs `test` on a pool of `size` scripted workers (`workerData` tells them how to behave), closed after. */
async function withPool(size: number, workerData: object, test: (pool: ScriptedPool) => Promise<void>): Promise<void> {
  const pool = new WorkerPool<number | string, Reply>(script, size, workerData, 'test');
  try {
    await test(pool);
  } finally {
    await pool.close();
  }
}

describe('WorkerPool', () => {
  it('runs jobs on every worker, in parallel, with results matched to their jobs', () =>
    withPool(2, { delayMs: 50 }, async (pool) => {
      const replies = await Promise.all([1, 2, 3, 4].map((n) => pool.run(n)));
      expect(replies.map((r) => r.value)).toEqual([2, 4, 6, 8]);
      expect(new Set(replies.map((r) => r.thread)).size).toBe(2);
    }));

  it('a worker that dies fails only its own job, transiently, and is replaced', () =>
    withPool(1, {}, async (pool) => {
      await expect(pool.run('crash')).rejects.toMatchObject({ code: 'transient', transient: true });
      expect((await pool.run(5)).value).toBe(10);
    }));

  it('a job error is reported as a typed error and the worker keeps serving', () =>
    withPool(1, {}, async (pool) => {
      await expect(pool.run('fail')).rejects.toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/bad input/) });
      expect((await pool.run(1)).value).toBe(2);
    }));

  it('serves a high-priority job (a query) before every queued normal job (ingestion batches)', () =>
    withPool(1, { delayMs: 5 }, async (pool) => {
      await pool.start();
      const order: number[] = [];
      const track = (n: number, priority: 'high' | 'normal') => pool.run(n, [], undefined, priority).then(() => void order.push(n));
      const batches = [1, 2, 3, 4, 5, 6].map((n) => track(n, 'normal'));
      const queries = [track(100, 'high'), track(101, 'high')];
      await Promise.all([...batches, ...queries]);
      // Batch 1 was already running when the queries arrived; they overtake the rest, in order.
      expect(order).toEqual([1, 100, 101, 2, 3, 4, 5, 6]);
    }));

  it('a steady stream of high-priority jobs still lets a queued normal job run (after a streak of high ones)', () =>
    withPool(1, { delayMs: 1 }, async (pool) => {
      await pool.start();
      const order: string[] = [];
      const queries: Promise<void>[] = [];
      let sent = 0;
      // Two queries always waiting: each one that finishes sends the next, up to 40.
      const query = (): void => {
        const n = sent++;
        queries.push(
          pool.run(n, [], undefined, 'high').then(() => {
            order.push(`q${n}`);
            if (sent < 40) query();
          }),
        );
      };
      const first = pool.run(1000, [], undefined, 'normal').then(() => void order.push('first batch'));
      const waiting = pool.run(1001, [], undefined, 'normal').then(() => void order.push('waiting batch'));
      query();
      query();
      await Promise.all([first, waiting]);
      while (queries.length < 40 || order.length < 42) await Promise.all(queries);
      // The first batch was running; the other waits for one streak of queries, not for the stream to end.
      expect(order.slice(0, HIGH_PRIORITY_STREAK + 2)).toEqual([
        'first batch',
        ...Array.from({ length: HIGH_PRIORITY_STREAK }, (_, i) => `q${i}`),
        'waiting batch',
      ]);
      expect(order.filter((o) => o.startsWith('q'))).toHaveLength(40);
    }));

  it('a model that cannot load fails start with not_configured', async () => {
    const pool = new WorkerPool<number, Reply>(script, 1, { failInit: true }, 'test');
    await expect(pool.start()).rejects.toMatchObject({ code: 'not_configured', message: expect.stringMatching(/no model here/) });
    await pool.close();
  });

  it('refuses a bad size and work after close', async () => {
    expect(() => new WorkerPool(script, 0, {}, 'test')).toThrow(/positive integer/);
    const pool = new WorkerPool<number, Reply>(script, 1, {}, 'test');
    await pool.close();
    await expect(pool.run(1)).rejects.toMatchObject({ code: 'not_configured' });
  });
});
