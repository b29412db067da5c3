import type { ScanPool } from './scan-pool.js';
import type { WasmMemory } from './wasm/vector-kernels.js';

/** Faults in `[start, end)` of a memory in the background, ahead of the writes that will fill it. */
export type Prefault = (memory: WasmMemory, start: number, end: number) => void;

/** Smallest growth worth faulting in on the workers (smaller ones fault as they are written). */
export const PREFAULT_MIN_BYTES = 4 * 1024 * 1024;
/**
 * Bytes per worker task, so the workers share a growth and other tasks (which go first: these
 * are background tasks) wait behind at most one chunk each. Chunks are queued last first: the writer, arriving at the front, faults the pages the
 * workers have not reached yet, and the two meet instead of faulting the same pages.
 */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Page faults, not copies, bound how fast a large index fills its segments (a fresh page costs
 * microseconds on virtual machines): the scan pool's threads touch the pages of each large
 * growth while the calling thread goes on writing rows (`touch` changes no byte). Best effort:
 * a task that fails or is dropped when the pool closes only means the writer faults those pages.
 */
export function prefaultOn(pool: ScanPool): Prefault {
  return (memory, start, end) => {
    for (let to = end; to > start; to -= CHUNK_BYTES) {
      pool.run(memory, 'touch', [Math.max(start, to - CHUNK_BYTES), to], { background: true }).catch(() => undefined);
    }
  };
}
