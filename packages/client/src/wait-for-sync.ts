import { KmError } from '@km/core';
import type { SyncJob } from '@km/wire';

/** Options of `MemoryWebClient.waitForSync`. */
export interface WaitForSyncOptions {
  /** Gives up (`aborted`) after this long, in ms; the job goes on. @default no limit */
  timeoutMs?: number;
  /** Time between two polls of the job, in ms. @default 500 */
  pollIntervalMs?: number;
  /** Called with the job at each poll, e.g. to draw its counts. */
  onProgress?: (job: SyncJob) => void;
  signal?: AbortSignal;
}

/** Reads the job with `read` until it is no longer running; `aborted` at the time limit or on `signal`. */
export async function waitForSyncJob(read: (signal: AbortSignal) => Promise<SyncJob>, options: WaitForSyncOptions): Promise<SyncJob> {
  const signals = [options.signal, options.timeoutMs !== undefined ? AbortSignal.timeout(options.timeoutMs) : undefined].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const signal = signals.length > 0 ? AbortSignal.any(signals) : new AbortController().signal;
  const interval = Math.max(10, options.pollIntervalMs ?? 500);
  for (;;) {
    if (signal.aborted) throw stopped(options);
    let job: SyncJob;
    try {
      job = await read(signal);
    } catch (error) {
      if (signal.aborted) throw stopped(options, error);
      throw error;
    }
    options.onProgress?.(job);
    if (job.status !== 'running') return job;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, interval);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

function stopped(options: WaitForSyncOptions, cause?: unknown): KmError {
  const why = options.signal?.aborted ? 'the wait was aborted' : `the job was still running after ${options.timeoutMs} ms`;
  return new KmError('aborted', `waiting for the sync job: ${why}`, { cause });
}
