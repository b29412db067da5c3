import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { USE_DIMENSIONS, UniversalSentenceEncoderGenerator } from '../src/index.js';

/** The worker pool's `run`, as the generator calls it: the job's texts, buffers to transfer, its signal and priority. */
type PoolRun = (texts: string[], transfer: ArrayBuffer[], signal: AbortSignal, priority: 'high' | 'normal') => Promise<unknown>;

/** A generator that cuts every call into jobs of one text each and hands them to `run` instead of its worker pool. */
function generatorOnPool(run: PoolRun, workers = 2): UniversalSentenceEncoderGenerator {
  const generator = new UniversalSentenceEncoderGenerator({ workers, maxTextsPerJob: 1 });
  Object.assign(generator, { pool: { run } });
  return generator;
}

describe('UniversalSentenceEncoderGenerator: abort listeners on the caller’s signal', () => {
  it('puts one listener on the caller’s signal per call, however many jobs the call is cut into, and removes it', async () => {
    const caller = new AbortController();
    let most = 0;
    // The pool's part of the contract, as WorkerPool does it: a listener on the job's signal until it settles.
    const generator = generatorOnPool(async (texts, _transfer, signal: AbortSignal | undefined) => {
      const onAbort = () => undefined;
      signal?.addEventListener('abort', onAbort, { once: true });
      most = Math.max(most, getEventListeners(caller.signal, 'abort').length);
      await new Promise((resolve) => setImmediate(resolve));
      signal?.removeEventListener('abort', onAbort);
      return new Float32Array(texts.length * USE_DIMENSIONS);
    });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let round = 0; round < 3; round++) {
        const vectors = await generator.generateEmbeddings(
          Array.from({ length: 40 }, (_, i) => `chunk ${i}`),
          caller.signal,
        );
        expect(vectors).toHaveLength(40);
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(most).toBe(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('an abort of the caller’s signal still reaches every job', async () => {
    const caller = new AbortController();
    const seen: AbortSignal[] = [];
    const generator = generatorOnPool(
      (_texts, _transfer, signal) =>
        new Promise((_resolve, reject) => {
          seen.push(signal);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    );
    const call = generator.generateEmbeddings(['a', 'b', 'c'], caller.signal);
    caller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    expect(seen).toHaveLength(3);
    expect(seen.every((s) => s.aborted)).toBe(true);
  });

  it('when one job of a call fails, the call’s other jobs are aborted (queued ones dropped) and the call rejects with that job’s error', async () => {
    const seen: AbortSignal[] = [];
    const ran: string[] = [];
    // Like WorkerPool: a job waits for its turn and rejects at once when its signal aborts.
    const generator = generatorOnPool(
      (texts, _transfer, signal) =>
        new Promise((resolve, reject) => {
          seen.push(signal);
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          setImmediate(() => {
            if (signal.aborted) return;
            if (texts[0] === 'bad') return reject(new Error('the model failed on bad'));
            setImmediate(() => {
              if (signal.aborted) return;
              ran.push(texts[0]!);
              resolve(new Float32Array(texts.length * USE_DIMENSIONS));
            });
          });
        }),
    );
    await expect(generator.generateEmbeddings(['bad', 'b', 'c', 'd'])).rejects.toThrow('the model failed on bad');
    expect(seen).toHaveLength(4);
    expect(seen.every((s) => s.aborted)).toBe(true);
    expect(ran).toEqual([]);
    // The caller's own signal is untouched.
    const caller = new AbortController();
    await expect(generator.generateEmbeddings(['bad', 'b'], caller.signal)).rejects.toThrow('the model failed on bad');
    expect(caller.signal.aborted).toBe(false);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a failed job drops its queued siblings in a real WorkerPool', async () => {
    const { WorkerPool } = await import('../src/index.js');
    // The fixture worker fails a job whose payload is 'fail' and doubles numbers.
    const pool = new WorkerPool<unknown, unknown>(new URL('./fixtures/scripted-worker.mjs', import.meta.url), 1, { delayMs: 1 }, 'test');
    const outcomes: string[] = [];
    const generator = generatorOnPool(
      (texts, transfer, signal, priority) =>
        pool.run(texts[0], transfer, signal, priority).then(
          () => (outcomes.push(`ran ${texts[0]}`), new Float32Array(USE_DIMENSIONS)),
          (error: { code: string }) => {
            outcomes.push(`${error.code} ${texts[0]}`);
            throw error;
          },
        ),
      1,
    );
    try {
      await expect(generator.generateEmbeddings(['fail', '1', '2', '3'])).rejects.toMatchObject({ code: 'upstream_error' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(outcomes).toEqual(['upstream_error fail', 'aborted 1', 'aborted 2', 'aborted 3']);
    } finally {
      await pool.close();
    }
  });
});
