import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { KmError } from '../errors/km-error.js';

/** A caller waiting for one text's vector. */
interface Waiter {
  resolve(vector: Float32Array): void;
  reject(error: unknown): void;
  /** Stops listening to the caller's signal. */
  detach(): void;
}

/** One text to embed, shared by every caller asking for it while it is pending. */
interface Job {
  readonly key: string;
  readonly text: string;
  readonly waiters: Set<Waiter>;
  /** The generator call the text went out in; unset while queued. */
  batch?: Batch;
}

/** One `generateEmbeddings` call. */
interface Batch {
  readonly jobs: readonly Job[];
  /** Jobs that still have a caller; the call is aborted when none is left. */
  live: number;
  readonly controller: AbortController;
}

/**
 * Embeds query texts through one generator in batches: requests that arrive in the same turn of
 * the event loop, or while an earlier call is running, go out together in one
 * `generateEmbeddings(texts, signal, { purpose: 'query' })` call of at most
 * `generator.maxBatchSize ?? 1` texts (a full batch goes out at once). Callers asking for the
 * same key while it is pending share one embedding.
 *
 * A caller whose signal aborts is rejected at once with the signal's reason; the call goes on
 * for the others and is aborted only when every caller of every text in it has aborted. A
 * failed call of several texts is retried once per text still asked for, alone, so one bad
 * query does not fail the others; a failed call of one text rejects its callers with the error.
 * A vector missing from the answer, empty or not numbers fails its call with `upstream_error`.
 */
export class QueryEmbeddingBatcher {
  private readonly pending = new Map<string, Job>();
  private queue: Job[] = [];
  private running = 0;
  private timer: NodeJS.Immediate | undefined;

  /**
   * @param generator the model.
   * @param onVector called with each vector the generator returns, also for texts whose callers
   *   all aborted meanwhile (a cache keeps it); the vector must not be changed.
   */
  constructor(
    private readonly generator: ITextEmbeddingGenerator,
    private readonly onVector: (key: string, vector: Float32Array) => void = () => {},
  ) {}

  /** Texts queued or being embedded. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * The vector of `text`, identified by `key` (texts with the same key share one embedding).
   * Every caller of a key gets the same array: copy it before changing it.
   */
  embed(key: string, text: string, signal?: AbortSignal): Promise<Float32Array> {
    signal?.throwIfAborted();
    let job = this.pending.get(key);
    if (!job) {
      job = { key, text, waiters: new Set() };
      this.pending.set(key, job);
      this.enqueue(job);
    } else if (job.waiters.size === 0 && job.batch) {
      job.batch.live++; // a job whose callers all left, revived before its call was aborted
    }
    const shared = job;
    return new Promise<Float32Array>((resolve, reject) => {
      const onAbort = () => {
        waiter.detach();
        this.leave(shared, waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = { resolve, reject, detach: () => signal?.removeEventListener('abort', onAbort) };
      shared.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private get maxBatchSize(): number {
    const size = Math.floor(this.generator.maxBatchSize ?? 1);
    return Number.isFinite(size) && size >= 1 ? size : 1;
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    const max = this.maxBatchSize;
    while (this.queue.length >= max) this.send(this.queue.splice(0, max));
    if (this.queue.length > 0 && this.running === 0 && !this.timer) {
      this.timer = setImmediate(() => {
        this.timer = undefined;
        this.flush();
      });
    }
  }

  /** Sends everything queued, in batches. */
  private flush(): void {
    const max = this.maxBatchSize;
    while (this.queue.length > 0) this.send(this.queue.splice(0, max));
  }

  private send(jobs: Job[]): void {
    const batch: Batch = { jobs, live: jobs.length, controller: new AbortController() };
    for (const job of jobs) job.batch = batch;
    this.running++;
    this.run(batch)
      .catch((error: unknown) => {
        // Whatever went wrong, no caller of this call is left waiting.
        for (const job of jobs) if (job.batch === batch) this.settle(job, (w) => w.reject(error));
      })
      .finally(() => {
        this.running--;
        this.flush();
      });
  }

  private async run(batch: Batch): Promise<void> {
    const { jobs, controller } = batch;
    let vectors: Float32Array[];
    try {
      const answer = await this.generator.generateEmbeddings(
        jobs.map((j) => j.text),
        controller.signal,
        { purpose: 'query' },
      );
      vectors = this.checked(answer, jobs.length);
    } catch (error) {
      if (jobs.length > 1 && !controller.signal.aborted) this.retryAlone(jobs);
      else for (const job of jobs) this.settle(job, (w) => w.reject(error));
      return;
    }
    jobs.forEach((job, i) => {
      const vector = vectors[i]!;
      this.onVector(job.key, vector);
      this.settle(job, (w) => w.resolve(vector));
    });
  }

  /** Sends each job of a failed call that still has a caller in a call of its own; drops the others. */
  private retryAlone(jobs: readonly Job[]): void {
    for (const job of jobs) {
      if (job.waiters.size > 0) this.send([job]);
      else if (this.pending.get(job.key) === job) this.pending.delete(job.key);
    }
  }

  /** The generator's answer as one vector per text; `upstream_error` naming the model when it is not. */
  private checked(answer: unknown, count: number): Float32Array[] {
    const model = this.generator.modelName ?? 'the embedding generator';
    if (!Array.isArray(answer) || answer.length !== count) {
      const got = Array.isArray(answer) ? `${answer.length} vectors` : 'no vector list';
      throw new KmError('upstream_error', `${model} returned ${got} for ${count} texts`);
    }
    return answer.map((vector: unknown, i) => {
      const checked = asVector(vector);
      if (!checked) throw new KmError('upstream_error', `${model} returned no usable vector for text ${i + 1} of ${count}`);
      return checked;
    });
  }

  private settle(job: Job, outcome: (waiter: Waiter) => void): void {
    if (this.pending.get(job.key) === job) this.pending.delete(job.key);
    for (const waiter of job.waiters) {
      waiter.detach();
      outcome(waiter);
    }
    job.waiters.clear();
  }

  /** A caller of `job` aborted: drop the job when it was the last one, abort the call when it was the last live job. */
  private leave(job: Job, waiter: Waiter): void {
    if (!job.waiters.delete(waiter) || job.waiters.size > 0) return;
    const { batch } = job;
    if (!batch) {
      this.queue.splice(this.queue.indexOf(job), 1);
      this.pending.delete(job.key);
      return;
    }
    if (--batch.live > 0) return;
    for (const j of batch.jobs) if (this.pending.get(j.key) === j) this.pending.delete(j.key);
    batch.controller.abort(new DOMException('every caller of the query embedding aborted', 'AbortError'));
  }
}

/** `value` as a non-empty Float32Array (a number array or typed array is copied into one); undefined when it is none. */
function asVector(value: unknown): Float32Array | undefined {
  if (value instanceof Float32Array) return value.length > 0 ? value : undefined;
  const numbers =
    Array.isArray(value) ||
    (ArrayBuffer.isView(value) && !(value instanceof DataView) && !(value instanceof BigInt64Array) && !(value instanceof BigUint64Array))
      ? (value as ArrayLike<unknown>)
      : undefined;
  if (!numbers || numbers.length === 0) return undefined;
  for (let i = 0; i < numbers.length; i++) if (typeof numbers[i] !== 'number') return undefined;
  return Float32Array.from(numbers as ArrayLike<number>);
}
