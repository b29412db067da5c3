import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { USE_DIMENSIONS, UniversalSentenceEncoderGenerator } from '../src/index.js';

describe('UniversalSentenceEncoderGenerator: abort listeners on the caller’s signal', () => {
  it('puts one listener on the caller’s signal per call, however many jobs the call is cut into, and removes it', async () => {
    const generator = new UniversalSentenceEncoderGenerator({ workers: 2, maxTextsPerJob: 1 });
    const caller = new AbortController();
    let most = 0;
    // The pool's part of the contract, as WorkerPool does it: a listener on the job's signal until it settles.
    const pool = {
      run: async (texts: string[], _transfer: ArrayBuffer[], signal: AbortSignal | undefined) => {
        const onAbort = () => undefined;
        signal?.addEventListener('abort', onAbort, { once: true });
        most = Math.max(most, getEventListeners(caller.signal, 'abort').length);
        await new Promise((resolve) => setImmediate(resolve));
        signal?.removeEventListener('abort', onAbort);
        return new Float32Array(texts.length * USE_DIMENSIONS);
      },
    };
    Object.assign(generator, { pool });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let round = 0; round < 3; round++) {
        const vectors = await generator.generateEmbeddings(Array.from({ length: 40 }, (_, i) => `chunk ${i}`), caller.signal);
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
    const generator = new UniversalSentenceEncoderGenerator({ workers: 2, maxTextsPerJob: 1 });
    const caller = new AbortController();
    const seen: AbortSignal[] = [];
    Object.assign(generator, {
      pool: {
        run: (_texts: string[], _transfer: ArrayBuffer[], signal: AbortSignal) =>
          new Promise((_resolve, reject) => {
            seen.push(signal);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
      },
    });
    const call = generator.generateEmbeddings(['a', 'b', 'c'], caller.signal);
    caller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    expect(seen).toHaveLength(3);
    expect(seen.every((s) => s.aborted)).toBe(true);
  });
});
