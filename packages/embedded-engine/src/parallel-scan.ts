import type { ScanKernel, ScanPool } from './scan-pool.js';
import type { WasmMemory } from './wasm/vector-kernels.js';

/** Rows `start .. start + count - 1` of one segment. */
export interface RowPart {
  start: number;
  count: number;
}

/** What a worker scan needs of a segment: its memory, its rows, and the kernel call of a run of rows. */
export interface ScannableSegment {
  readonly memory: WasmMemory;
  readonly count: number;
  /** The kernel and its arguments that score `part` into the scan's lane. */
  task(part: RowPart): { kernel: ScanKernel; args: number[] };
}

/**
 * Cuts the rows of each segment into runs of at most `ceil(total / threads)` rows (a multiple of
 * 4, the kernels' block), so `threads` workers get equal shares with few messages.
 */
export function planParts(counts: readonly number[], threads: number): RowPart[][] {
  const total = counts.reduce((a, b) => a + b, 0);
  const size = Math.max(4, Math.ceil(total / threads / 4) * 4);
  return counts.map((count) => {
    const parts: RowPart[] = [];
    for (let start = 0; start < count; start += size) parts.push({ start, count: Math.min(size, count - start) });
    return parts;
  });
}

/**
 * Starts the scan of every segment on the pool; returns one promise per segment, settled when all
 * its rows are scored, so the caller can merge segment by segment while later ones still run. The
 * promises are marked handled: a caller that stops at the first failure leaves no unhandled
 * rejection (it must still wait for {@link settled} before reusing the lane).
 */
export function scanOnPool(pool: ScanPool, segments: readonly ScannableSegment[], threads: number): Array<Promise<void>> {
  const plan = planParts(
    segments.map((s) => s.count),
    threads,
  );
  return segments.map((segment, s) => {
    const done = Promise.all(
      plan[s]!.map((part) => {
        const { kernel, args } = segment.task(part);
        return pool.run(segment.memory, kernel, args);
      }),
    ).then(() => undefined);
    done.catch(() => undefined);
    return done;
  });
}

/** Resolves once every promise settled, whatever the outcome. */
export async function settled(promises: ReadonlyArray<Promise<unknown>>): Promise<void> {
  await Promise.allSettled(promises);
}

/** How a vector index splits its scans across worker threads. */
export interface ParallelScanOptions {
  readonly pool: ScanPool;
  /** Smallest index (records × dimensions) whose full scans go to the pool; smaller ones stay on the calling thread. */
  readonly threshold: number;
}

/** Scratch lanes per segment for worker scans: more in-flight worker scans of one index wait for a lane. */
export const WORKER_LANES = 4;
