import { Worker } from 'node:worker_threads';
import { KmError } from '@km/core';

/** Messages a pool worker sends. */
export type WorkerReply<R> =
  | { type: 'ready' }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; result: R }
  | { type: 'error'; id: number; message: string };

/**
 * How urgently a job is wanted: `high` jobs (a search query someone waits for) run before any
 * `normal` job still queued (ingestion batches), except that a waiting `normal` job gets a turn
 * after {@link HIGH_PRIORITY_STREAK} `high` ones in a row; each lane is first in, first out.
 */
export type JobPriority = 'high' | 'normal';

/**
 * Most `high` jobs served in a row while a `normal` job waits; the next job is then the oldest
 * `normal` one. Under steady search load ingestion still advances (about one job in nine), so
 * its queue leases do not run out while it waits.
 */
export const HIGH_PRIORITY_STREAK = 8;

/** A snapshot of a {@link WorkerPool}. */
export interface PoolStats {
  /** Workers started and serving. */
  workers: number;
  /** Workers running a job. */
  busy: number;
  /** `high` jobs waiting (queries). */
  queuedHigh: number;
  /** `normal` jobs waiting (ingestion). */
  queuedNormal: number;
}

/** A job a pool worker receives. */
export interface WorkerJob<Q> {
  id: number;
  payload: Q;
}

interface Job<Q, R> {
  id: number;
  payload: Q;
  transfer: ArrayBuffer[];
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Slot<Q, R> {
  worker: Worker;
  job: Job<Q, R> | undefined;
}

/**
 * A fixed set of worker threads running one script, each loading its model once. Jobs queue
 * in two lanes and go to the first idle worker: `high` jobs before every queued `normal` one,
 * so a query waits at most for the job each worker is running, never for the backlog; after
 * {@link HIGH_PRIORITY_STREAK} `high` jobs in a row one waiting `normal` job goes first, so
 * queries never starve ingestion. A
 * worker that dies fails only its own job (as a transient error) and is replaced. Idle workers
 * are unref'd, so a pool never keeps the process alive on its own.
 */
export class WorkerPool<Q, R> {
  private readonly slots: Slot<Q, R>[] = [];
  private readonly urgent: Job<Q, R>[] = [];
  private readonly queue: Job<Q, R>[] = [];
  private starting: Promise<void> | undefined;
  private nextId = 1;
  private closed = false;
  /** `high` jobs dispatched in a row while `normal` jobs were waiting. */
  private highStreak = 0;

  constructor(
    private readonly script: URL,
    readonly size: number,
    private readonly workerData: unknown,
    private readonly label: string,
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new KmError('invalid_argument', `${label}: worker count must be a positive integer, got ${size}`);
  }

  /** Starts every worker and waits until each has loaded its model. */
  start(): Promise<void> {
    this.starting ??= Promise.all(Array.from({ length: this.size }, () => this.spawn())).then(() => undefined);
    // A failed start may be retried.
    this.starting.catch(() => (this.starting = undefined));
    return this.starting;
  }

  /** Runs one job on the first idle worker; `high` priority jobs overtake queued `normal` ones. */
  async run(payload: Q, transfer: ArrayBuffer[] = [], signal?: AbortSignal, priority: JobPriority = 'normal'): Promise<R> {
    this.throwIfAborted(signal);
    if (this.closed) throw new KmError('not_configured', `${this.label}: the worker pool is closed`);
    await this.start();
    this.throwIfAborted(signal);
    const lane = priority === 'high' ? this.urgent : this.queue;
    return new Promise<R>((resolve, reject) => {
      const job: Job<Q, R> = { id: this.nextId++, payload, transfer, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        job.onAbort = () => {
          const queued = lane.indexOf(job);
          if (queued >= 0) lane.splice(queued, 1);
          // A running job finishes in its worker; its result is dropped.
          reject(new KmError('aborted', `${this.label}: aborted`, { cause: signal.reason }));
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      lane.push(job);
      this.dispatch();
    });
  }

  /** How many workers serve and run a job, and how many jobs wait in each lane. */
  stats(): PoolStats {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.job).length,
      queuedHigh: this.urgent.length,
      queuedNormal: this.queue.length,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.urgent.splice(0), ...this.queue.splice(0)])
      this.settle(job, new KmError('aborted', `${this.label}: the worker pool closed`));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
    this.starting = undefined;
  }

  private spawn(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const worker = new Worker(this.script, { workerData: this.workerData });
      const slot: Slot<Q, R> = { worker, job: undefined };
      let ready = false;
      worker.on('message', (reply: WorkerReply<R>) => {
        if (reply.type === 'ready') {
          ready = true;
          this.slots.push(slot);
          worker.unref();
          resolve();
          this.dispatch();
        } else if (reply.type === 'init-error') {
          void worker.terminate();
          reject(new KmError('not_configured', `${this.label}: the model did not load: ${reply.message}`));
        } else if (slot.job && slot.job.id === reply.id) {
          const job = slot.job;
          slot.job = undefined;
          worker.unref();
          if (reply.type === 'result') this.settle(job, undefined, reply.result);
          else this.settle(job, new KmError('upstream_error', `${this.label}: ${reply.message}`));
          this.dispatch();
        }
      });
      const onDeath = (error: unknown) => {
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots.splice(index, 1);
        if (!ready)
          return reject(new KmError('not_configured', `${this.label}: a worker failed to start: ${describe(error)}`, { cause: error }));
        if (slot.job) {
          const job = slot.job;
          slot.job = undefined;
          this.settle(job, new KmError('transient', `${this.label}: a worker died: ${describe(error)}`, { transient: true, cause: error }));
        }
        // Keep the pool at its size for the jobs still queued.
        if (!this.closed)
          this.spawn().then(
            () => this.dispatch(),
            (e) => this.failQueue(e),
          );
      };
      worker.on('error', onDeath);
      worker.on('exit', (code) => {
        if (!this.closed && (this.slots.includes(slot) || !ready)) onDeath(new Error(`exit code ${code}`));
      });
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.next();
      if (!job) return;
      slot.job = job;
      slot.worker.ref();
      const message: WorkerJob<Q> = { id: job.id, payload: job.payload };
      slot.worker.postMessage(message, job.transfer);
    }
  }

  /** The next job to run: the oldest `high` one, unless a `normal` one has waited through a full streak. */
  private next(): Job<Q, R> | undefined {
    if (this.queue.length === 0) this.highStreak = 0;
    else if (this.urgent.length === 0 || this.highStreak >= HIGH_PRIORITY_STREAK) {
      this.highStreak = 0;
      return this.queue.shift();
    } else this.highStreak++;
    return this.urgent.shift();
  }

  private throwIfAborted(signal: AbortSignal | undefined): void {
    if (signal?.aborted) throw new KmError('aborted', `${this.label}: aborted`, { cause: signal.reason });
  }

  private failQueue(error: unknown): void {
    for (const job of [...this.urgent.splice(0), ...this.queue.splice(0)]) this.settle(job, error);
  }

  private settle(job: Job<Q, R>, error: unknown, result?: R): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    // An aborted job was already rejected by its abort listener; settling twice is a no-op.
    if (job.signal?.aborted) return job.reject(new KmError('aborted', `${this.label}: aborted`));
    if (error !== undefined) job.reject(error);
    else job.resolve(result as R);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
