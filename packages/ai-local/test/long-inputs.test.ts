import { CL100KTokenizer } from '@km/core';
import { afterAll, describe, expect, it } from 'vitest';
import { UniversalSentenceEncoderGenerator, WorkerPool } from '../src/index.js';

const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i % 997} topic${i % 13}`).join(' ');

describe('UniversalSentenceEncoderGenerator: no input longer than maxTokens reaches the model', () => {
  const generator = new UniversalSentenceEncoderGenerator({ workers: 1 });
  afterAll(() => generator.close());

  it('a long text gets the vector of its first maxTokens tokens', async () => {
    const short = new UniversalSentenceEncoderGenerator({ workers: 1, maxTokens: 20 });
    try {
      const text = words(300);
      const cut = new CL100KTokenizer().truncate(text, 20);
      const [long, head] = await short.generateEmbeddings([text, cut]);
      expect(Array.from(long!)).toEqual(Array.from(head!));
    } finally {
      await short.close();
    }
  });

  it('a 20,000-word text is embedded in about the time of 2,048 tokens, not minutes', { timeout: 30_000 }, async () => {
    await generator.ready();
    const started = performance.now();
    const [vector] = await generator.generateEmbeddings([words(10_000)], undefined, { purpose: 'query' });
    expect(vector).toHaveLength(512);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('reports what its pool is doing', async () => {
    await generator.ready();
    expect(generator.poolStats()).toEqual({ workers: 1, busy: 0, queuedHigh: 0, queuedNormal: 0 });
  });
});

describe('WorkerPool: an aborted job is dropped from its lane', () => {
  it('a queued job whose caller aborted never reaches a worker, and the lanes are empty after', async () => {
    const pool = new WorkerPool<number, { value: number }>(
      new URL('./fixtures/scripted-worker.mjs', import.meta.url),
      1,
      { delayMs: 100 },
      'test',
    );
    try {
      await pool.start();
      const running = pool.run(1);
      const controller = new AbortController();
      const queued = [pool.run(2, [], controller.signal, 'high'), pool.run(3, [], controller.signal)];
      await new Promise((r) => setTimeout(r, 10));
      expect(pool.stats()).toEqual({ workers: 1, busy: 1, queuedHigh: 1, queuedNormal: 1 });
      controller.abort();
      for (const job of queued) await expect(job).rejects.toMatchObject({ code: 'aborted' });
      expect(pool.stats()).toEqual({ workers: 1, busy: 1, queuedHigh: 0, queuedNormal: 0 });
      expect((await running).value).toBe(2);
      expect(pool.stats().busy).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
