import { randomUUID } from 'node:crypto';
import { isKmError, type Logger, type SyncProgress, type SyncReport } from '@km/core';
import type { SyncJob, SyncJobCounts, SyncSourceRequest } from '@km/wire';

/** What a job runs: a sync that stops when `signal` aborts and reports its steps to `onProgress`. */
export type SyncRun = (signal: AbortSignal, onProgress: (progress: SyncProgress) => void) => Promise<SyncReport>;

/** What {@link SyncJobRegistry.start} needs to know of a job. */
export interface SyncJobSpec {
  index: string;
  source: SyncSourceRequest;
  /** The source's id: with the index, two running jobs may not share it. */
  sourceId: string;
  run: SyncRun;
}

/** Options of {@link SyncJobRegistry}. */
export interface SyncJobRegistryOptions {
  /** Finished jobs kept for `GET /sync` and `GET /sync/{jobId}`, the oldest forgotten first. @default 100 */
  capacity?: number;
  logger: Logger;
}

interface JobRecord {
  job: SyncJob;
  controller: AbortController;
  cancelled: boolean;
  done: Promise<void>;
  /** Resolves at the first progress of the sync (past its lease and checks) or when it ends. */
  begun: Promise<void>;
  /** What the run threw, when it failed. */
  error?: unknown;
}

const zero = (): SyncJobCounts => ({ listed: 0, added: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 });

/**
 * The service's sync jobs: each runs in the background (its errors caught and recorded, never
 * an unhandled rejection), one at a time per (index, source); finished jobs are kept in a
 * bounded ring; `close()` cancels the running ones and waits for them.
 */
export class SyncJobRegistry {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly capacity: number;
  private readonly logger: Logger;
  private closed = false;

  constructor(options: SyncJobRegistryOptions) {
    this.capacity = Math.max(1, options.capacity ?? 100);
    this.logger = options.logger;
  }

  /**
   * Starts a job; when a job of the same index and source id is running, starts nothing and
   * returns that one with `started: false`.
   */
  start(spec: SyncJobSpec): { job: SyncJob; started: boolean } {
    if (this.closed) throw new Error('the sync jobs are closed: the service is stopping');
    const running = [...this.jobs.values()].find(
      (r) => r.job.status === 'running' && r.job.index === spec.index && r.job.sourceId === spec.sourceId,
    );
    if (running) return { job: copy(running.job), started: false };
    const job: SyncJob = {
      jobId: randomUUID(),
      status: 'running',
      index: spec.index,
      source: spec.source,
      sourceId: spec.sourceId,
      phase: 'listing',
      counts: zero(),
      startedAt: new Date().toISOString(),
    };
    const controller = new AbortController();
    let begin!: () => void;
    const begun = new Promise<void>((resolve) => {
      begin = resolve;
    });
    const record: JobRecord = { job, controller, cancelled: false, done: Promise.resolve(), begun };
    const onProgress = (progress: SyncProgress) => {
      begin();
      job.phase = progress.phase;
      job.counts = { ...progress.counts };
    };
    record.done = Promise.resolve()
      .then(() => spec.run(controller.signal, onProgress))
      .then(
        (report) => {
          job.report = report;
          job.counts = countsOf(report);
          job.phase = 'done';
          // A listing that did not complete (a site unreachable, a folder unreadable) fails the job: nothing was deleted.
          const listing = report.complete
            ? undefined
            : (report.failures.find((f) => f.itemId === '')?.error ?? 'the listing did not complete');
          job.status = record.cancelled ? 'cancelled' : listing !== undefined ? 'failed' : 'completed';
          if (record.cancelled) job.error = 'cancelled';
          else if (listing !== undefined) job.error = listing.replace(/^\[km\]\s*/, '');
        },
        (error: unknown) => {
          record.error = error;
          job.status = record.cancelled ? 'cancelled' : 'failed';
          job.error = record.cancelled ? 'cancelled' : messageOf(error);
          if (!record.cancelled && isKmError(error)) job.errorCode = error.code;
          if (!record.cancelled) this.logger.warn('sync job failed', { jobId: job.jobId, source: job.sourceId, error: job.error });
        },
      )
      .finally(() => {
        job.finishedAt = new Date().toISOString();
        begin();
        this.trim();
      });
    this.jobs.set(job.jobId, record);
    this.trim();
    return { job: copy(job), started: true };
  }

  /** The job, as it stands now. */
  get(jobId: string): SyncJob | undefined {
    const record = this.jobs.get(jobId);
    return record ? copy(record.job) : undefined;
  }

  /** Every job kept, newest first. */
  list(): SyncJob[] {
    return [...this.jobs.values()].map((r) => copy(r.job)).reverse();
  }

  /** Asks a running job to stop (it turns `cancelled` once it has); a finished job is left as it is. */
  cancel(jobId: string): SyncJob | undefined {
    const record = this.jobs.get(jobId);
    if (!record) return undefined;
    if (record.job.status === 'running' && !record.cancelled) {
      record.cancelled = true;
      record.controller.abort(new Error('the sync job was cancelled'));
    }
    return copy(record.job);
  }

  /**
   * Waits until the job has begun (its first progress: the sync holds its lease and passed its
   * checks) or ended, at most `timeoutMs`. When it failed by then, forgets it and returns its
   * error, so that the request that started it can answer with it (`sync_busy`, a bad option).
   */
  async begun(jobId: string, timeoutMs: number): Promise<{ error: unknown } | undefined> {
    const record = this.jobs.get(jobId);
    if (!record) return undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([record.begun, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    // Only a sync that threw (it never began) is the caller's; one whose listing failed is a job that ran.
    if (record.job.status !== 'failed' || !('error' in record)) return undefined;
    this.jobs.delete(jobId);
    return { error: record.error };
  }

  /** Cancels the running jobs and waits until they stopped; no job starts afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    const running = [...this.jobs.values()].filter((r) => r.job.status === 'running');
    for (const record of running) this.cancel(record.job.jobId);
    await Promise.all(running.map((r) => r.done));
  }

  /** Forgets the oldest finished jobs beyond the capacity (running ones are always kept). */
  private trim(): void {
    let excess = this.jobs.size - this.capacity;
    for (const [id, record] of this.jobs) {
      if (excess <= 0) break;
      if (record.job.status === 'running') continue;
      this.jobs.delete(id);
      excess--;
    }
  }
}

function countsOf(report: SyncReport): SyncJobCounts {
  const { listed, added, updated, unchanged, deleted, failed } = report;
  return { listed, added, updated, unchanged, deleted, failed };
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^\[km\]\s*/, '');
}

function copy(job: SyncJob): SyncJob {
  return structuredClone(job);
}
