import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../src/engine-error.js';
import { ScanPool } from '../src/scan-pool.js';
import { createVectorKernels, createWasmMemory, type WasmMemory } from '../src/wasm/vector-kernels.js';

const STRIDE = 16;
const ROWS = 1000;
const QUERY = 0;
const ROWS_AT = 64;
const OUT_MAIN = ROWS_AT + ROWS * STRIDE * 4;
const OUT_POOL = OUT_MAIN + ROWS * 4;

/** A memory holding a query and `ROWS` seeded rows, and two score areas. */
function seededMemory(seed: number): WasmMemory {
  const memory = createWasmMemory(Math.ceil((OUT_POOL + ROWS * 4) / 65536), 64);
  const floats = new Float32Array(memory.buffer);
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648 - 0.5;
  };
  for (let i = 0; i < STRIDE; i++) floats[QUERY / 4 + i] = next();
  for (let i = 0; i < ROWS * STRIDE; i++) floats[ROWS_AT / 4 + i] = next();
  return memory;
}

function scores(memory: WasmMemory, at: number): Float32Array {
  return new Float32Array(memory.buffer, at, ROWS).slice();
}

const pools: ScanPool[] = [];
const newPool = (threads: number) => {
  const pool = new ScanPool(threads);
  pools.push(pool);
  return pool;
};
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

describe('ScanPool', () => {
  it('runs the dots kernel in a worker, with the same scores as the calling thread', async () => {
    const memory = seededMemory(7);
    createVectorKernels(memory).dots(QUERY, ROWS_AT, ROWS, STRIDE, OUT_MAIN);
    const pool = newPool(2);
    // two halves, one per worker
    await Promise.all([
      pool.run(memory, 'dots', [QUERY, ROWS_AT, 500, STRIDE, OUT_POOL]),
      pool.run(memory, 'dots', [QUERY, ROWS_AT + 500 * STRIDE * 4, 500, STRIDE, OUT_POOL + 500 * 4]),
    ]);
    expect(scores(memory, OUT_POOL)).toEqual(scores(memory, OUT_MAIN));
    expect(pool.tasksRun).toBe(2);
    expect(pool.liveWorkers).toBe(2);
  });

  it('keeps one kernels instance per memory: tasks over several memories each see their own', async () => {
    const pool = newPool(1);
    const memories = [seededMemory(1), seededMemory(2), seededMemory(3)];
    for (const m of memories) createVectorKernels(m).dots(QUERY, ROWS_AT, ROWS, STRIDE, OUT_MAIN);
    await Promise.all(memories.map((m) => pool.run(m, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL])));
    await Promise.all(memories.map((m) => pool.run(m, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL])));
    for (const m of memories) expect(scores(m, OUT_POOL)).toEqual(scores(m, OUT_MAIN));
    expect(pool.liveWorkers).toBe(1);
  });

  it('starts workers lazily, at most `threads`', async () => {
    const pool = newPool(2);
    expect(pool.liveWorkers).toBe(0);
    const memory = seededMemory(4);
    await Promise.all(Array.from({ length: 6 }, () => pool.run(memory, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL])));
    expect(pool.liveWorkers).toBe(2);
    expect(pool.tasksRun).toBe(6);
  });

  it('rejects a task whose kernel traps, and the worker goes on serving', async () => {
    const pool = newPool(1);
    const memory = seededMemory(5);
    const outOfBounds = memory.buffer.byteLength + 1024;
    const error = await pool.run(memory, 'dots', [QUERY, outOfBounds, 4, STRIDE, OUT_POOL]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).message).toMatch(/scan kernel dots failed/);
    await pool.run(memory, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL]);
    createVectorKernels(memory).dots(QUERY, ROWS_AT, ROWS, STRIDE, OUT_MAIN);
    expect(scores(memory, OUT_POOL)).toEqual(scores(memory, OUT_MAIN));
  });

  it('rejects the task of a worker that dies with a transient error, and replaces the worker', async () => {
    const pool = newPool(1);
    const memory = seededMemory(6);
    // a long task (many rows, repeated) so the kill lands while it runs
    const big = createWasmMemory(1600, 1600);
    const running = pool.run(big, 'dots', [0, 64, 1_600_000, 16, 64]);
    const queued = pool.run(memory, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL]);
    await pool.killWorker(0);
    const error = await running.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).transient).toBe(true);
    expect((error as EngineError).message).toMatch(/scan worker exited/);
    // the queued task runs on a replacement worker
    await queued;
    createVectorKernels(memory).dots(QUERY, ROWS_AT, ROWS, STRIDE, OUT_MAIN);
    expect(scores(memory, OUT_POOL)).toEqual(scores(memory, OUT_MAIN));
    expect(pool.liveWorkers).toBe(1);
  });

  it('runs a task before background tasks queued earlier (prefaulting never delays a scan)', async () => {
    const pool = newPool(1);
    const memory = seededMemory(9);
    const done: string[] = [];
    const background = Array.from({ length: 4 }, (_, i) =>
      pool.run(memory, 'touch', [ROWS_AT, OUT_MAIN], { background: true }).then(() => done.push(`background ${i}`)),
    );
    const scan = pool.run(memory, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL]).then(() => done.push('scan'));
    await Promise.all([...background, scan]);
    // The worker had taken the first background task already; the scan goes next, before the rest.
    expect(done).toEqual(['background 0', 'scan', 'background 1', 'background 2', 'background 3']);
    // close rejects a background task still waiting (handlers attached first: no unhandled rejection).
    const closed = newPool(1);
    const running = closed.run(memory, 'touch', [ROWS_AT, OUT_MAIN], { background: true }).catch(() => undefined);
    const waiting = closed.run(memory, 'touch', [ROWS_AT, OUT_MAIN], { background: true }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await closed.close();
    expect(await waiting).toMatchObject({ code: 'aborted' });
    await running;
  });

  it('close rejects pending tasks and later runs', async () => {
    const pool = newPool(1);
    const memory = seededMemory(8);
    const tasks = Array.from({ length: 4 }, () => pool.run(memory, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL]));
    const settled = Promise.allSettled(tasks);
    await pool.close();
    const results = await settled;
    const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(rejected.length).toBeGreaterThanOrEqual(3); // the first may have finished before close
    for (const r of rejected) expect((r.reason as EngineError).code).toBe('aborted');
    await expect(pool.run(memory, 'dots', [QUERY, ROWS_AT, ROWS, STRIDE, OUT_POOL])).rejects.toMatchObject({ code: 'aborted' });
    expect(pool.liveWorkers).toBe(0);
  });
});
