import { availableParallelism } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { InvalidInputError, KmError, type ITextEmbeddingGenerator, type ITextTokenizer } from '@km/core';
import { pickTransformersEnv, type TransformersModule } from './transformers-module.js';

/** Options of {@link TransformersEmbeddingGenerator}. */
export interface TransformersEmbeddingGeneratorOptions {
  /**
   * Folder of the model, as transformers.js lays it out: `config.json`, `tokenizer.json`,
   * `tokenizer_config.json` and `onnx/model.onnx` (e.g. a download of
   * `Xenova/all-MiniLM-L6-v2` or `Xenova/bge-small-en-v1.5`).
   */
  modelPath?: string;
  /**
   * A Hugging Face model id to download when `allowRemoteModels` is on, e.g.
   * `Xenova/all-MiniLM-L6-v2`. Ignored when `modelPath` is set.
   */
  modelId?: string;
  /** Let transformers.js download the model (and cache it in `cacheDir`). @default false */
  allowRemoteModels?: boolean;
  cacheDir?: string;
  /** How token vectors become one vector: `mean` (MiniLM, most sentence-transformers) or `cls` (bge). @default 'mean' */
  pooling?: 'mean' | 'cls';
  /** L2-normalise the vectors. @default true */
  normalize?: boolean;
  /** ONNX weights to load: `fp32` reads `model.onnx`, `q8` reads `model_quantized.onnx`. @default 'fp32' */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4';
  /** ONNX Runtime intra-op threads. @default the number of cores */
  threads?: number;
  /** Texts per call. @default 32 */
  maxBatchSize?: number;
  /** Longest input in tokens. @default the tokenizer's `model_max_length` (capped at 8192), else 512 */
  maxTokens?: number;
  /** Name stored with the vectors. @default `local/<folder name or model id>` */
  modelName?: string;
}

interface Extractor {
  (texts: string[], options: { pooling: 'mean' | 'cls'; normalize: boolean }): Promise<{ dims: number[]; data: Float32Array }>;
  tokenizer: {
    model_max_length?: number;
    encode(text: string, options?: { add_special_tokens?: boolean }): number[];
    decode(ids: number[]): string;
  };
  dispose?(): Promise<void>;
}

// transformers.js settings are module-wide; loads take turns so each sees its own.
let loadQueue: Promise<unknown> = Promise.resolve();

/**
 * Embeddings from an ONNX sentence-embedding model on disk, run by transformers.js on
 * onnxruntime-node. Remote loading is off unless you opt in, so by default it reads only the
 * folder you give it. `@huggingface/transformers` is an optional peer dependency: install it
 * to use this generator.
 *
 * ```ts
 * const embeddings = new TransformersEmbeddingGenerator({ modelPath: './models/all-MiniLM-L6-v2' });
 * await embeddings.ready();
 * ```
 */
export class TransformersEmbeddingGenerator implements ITextEmbeddingGenerator {
  readonly modelName: string;
  readonly maxBatchSize: number;
  private extractor: Extractor | undefined;
  private loading: Promise<Extractor> | undefined;
  private size: number | undefined;
  private limit: number | undefined;

  constructor(
    private readonly options: TransformersEmbeddingGeneratorOptions,
    private readonly importTransformers: () => Promise<TransformersModule> = () =>
      import('@huggingface/transformers') as Promise<TransformersModule>,
  ) {
    if (!options.modelPath && !options.modelId) {
      throw new InvalidInputError(
        'not_configured',
        'TransformersEmbeddingGenerator needs a modelPath (or a modelId with allowRemoteModels)',
        {
          connector: 'ai-local',
        },
      );
    }
    if (!options.modelPath && !options.allowRemoteModels) {
      throw new InvalidInputError(
        'not_configured',
        `model "${options.modelId}" is not on disk: give a modelPath, or set allowRemoteModels to download it`,
        {
          connector: 'ai-local',
        },
      );
    }
    this.modelName = options.modelName ?? `local/${options.modelPath ? basename(resolve(options.modelPath)) : options.modelId}`;
    this.maxBatchSize = options.maxBatchSize ?? 32;
  }

  get dimensions(): number | undefined {
    return this.size;
  }

  get maxTokens(): number {
    return this.options.maxTokens ?? this.limit ?? 512;
  }

  /** The model's own tokenizer; available once `ready()` resolved. */
  get tokenizer(): ITextTokenizer {
    const tokenizer = this.loaded().tokenizer;
    return {
      countTokens: (text) => tokenizer.encode(text, { add_special_tokens: false }).length,
      getTokens: (text) => tokenizer.encode(text, { add_special_tokens: false }).map((id) => tokenizer.decode([id])),
    };
  }

  async ready(): Promise<void> {
    await this.load();
  }

  async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const extractor = await this.load();
    signal?.throwIfAborted();
    // No input longer than maxTokens reaches the model, and a huge one is not tokenized whole.
    texts = texts.map((t) => this.truncate(extractor, t));
    const output = await extractor(texts, { pooling: this.options.pooling ?? 'mean', normalize: this.options.normalize ?? true });
    const [rows, size] = output.dims as [number, number];
    if (rows !== texts.length)
      throw new KmError('upstream_error', `${this.modelName} returned ${rows} vectors for ${texts.length} texts`, {
        connector: 'ai-local',
      });
    return Array.from({ length: rows }, (_, i) => output.data.slice(i * size, (i + 1) * size));
  }

  /** `text` cut to its first `maxTokens` tokens of the model's tokenizer (its special tokens aside). */
  private truncate(extractor: Extractor, text: string): string {
    const max = this.maxTokens;
    // A token is rarely over 32 characters; a character at most 3 tokens.
    const head = text.length > max * 32 ? text.slice(0, max * 32) : text;
    if (head.length * 3 <= max) return head;
    const ids = extractor.tokenizer.encode(head, { add_special_tokens: false });
    return ids.length <= max && head === text ? text : extractor.tokenizer.decode(ids.slice(0, max));
  }

  async close(): Promise<void> {
    await this.extractor?.dispose?.();
    this.extractor = undefined;
    this.loading = undefined;
  }

  private loaded(): Extractor {
    if (!this.extractor)
      throw new KmError('not_configured', `${this.modelName} is not loaded yet: await ready() first`, { connector: 'ai-local' });
    return this.extractor;
  }

  private load(): Promise<Extractor> {
    if (!this.loading) {
      const run = loadQueue.catch(() => undefined).then(() => this.loadNow());
      loadQueue = run;
      this.loading = run;
      // A failed load may be retried by the next call.
      run.catch(() => {
        if (this.loading === run) this.loading = undefined;
      });
    }
    return this.loading;
  }

  private async loadNow(): Promise<Extractor> {
    let transformers: TransformersModule;
    try {
      transformers = await this.importTransformers();
    } catch (e) {
      throw new KmError(
        'not_configured',
        'TransformersEmbeddingGenerator needs the @huggingface/transformers package: install it next to @km/ai-local',
        {
          connector: 'ai-local',
          cause: e,
        },
      );
    }
    const { env } = transformers;
    const saved = pickTransformersEnv(env);
    const local = this.options.modelPath ? resolve(this.options.modelPath) : undefined;
    try {
      env.allowRemoteModels = !local && this.options.allowRemoteModels === true;
      env.allowLocalModels = true;
      if (local) env.localModelPath = `${dirname(local)}/`;
      if (this.options.cacheDir) env.cacheDir = this.options.cacheDir;
      const threads = this.options.threads ?? availableParallelism();
      const extractor = (await transformers.pipeline('feature-extraction', local ? basename(local) : this.options.modelId!, {
        dtype: this.options.dtype ?? 'fp32',
        local_files_only: Boolean(local),
        session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
      })) as unknown as Extractor;
      const probe = await extractor(['probe'], { pooling: this.options.pooling ?? 'mean', normalize: true });
      this.size = probe.dims[1];
      const max = extractor.tokenizer.model_max_length;
      this.limit = typeof max === 'number' && Number.isFinite(max) && max > 0 ? Math.min(max, 8192) : undefined;
      this.extractor = extractor;
      return extractor;
    } catch (e) {
      throw new KmError(
        'not_configured',
        `${this.modelName} did not load from ${local ?? this.options.modelId}: ${e instanceof Error ? e.message : String(e)}`,
        {
          connector: 'ai-local',
          cause: e,
        },
      );
    } finally {
      Object.assign(env, saved);
    }
  }
}
