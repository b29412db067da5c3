import { CL100KTokenizer, InvalidInputError, KmError, type ITextEmbeddingGenerator, type ITextTokenizer } from '@km/core';
import type { EmbedRequest } from 'ollama';
import { CONNECTOR } from './errors.js';
import { OllamaEndpoint, type OllamaEndpointOptions } from './ollama-endpoint.js';
import { throwIfAborted } from './signals.js';

/** Options of {@link OllamaEmbeddingGenerator}. */
export interface OllamaEmbeddingGeneratorOptions extends OllamaEndpointOptions {
  /** A model pulled on the server, e.g. `nomic-embed-text` or `mxbai-embed-large`. */
  model: string;
  /**
   * Vector size. Sent as `dimensions`, which models able to shorten their vectors honour; a
   * server or model that ignores it answers full-size vectors, and the call then fails with
   * `vector_size_mismatch` rather than store vectors of two sizes.
   * @default learned from the first response
   */
  dimensions?: number;
  /**
   * Longest input, in tokens: the context length, sent as `options.num_ctx` so that the server
   * and km agree on it. @default the context of known models (nomic-embed-text 8192,
   * mxbai-embed-large 512, ...), else 2048
   */
  maxTokens?: number;
  /**
   * Let the server cut inputs longer than `maxTokens` (Ollama's `truncate`) instead of failing
   * with `input_too_long`. @default false
   */
  truncate?: boolean;
  /** Inputs per `/api/embed` request, and the most texts the pipeline sends per call. @default 32 */
  batchSize?: number;
  /** @default an estimate: OpenAI's cl100k tokenizer (Ollama has no tokenize endpoint on every version) */
  tokenizer?: ITextTokenizer;
}

/** Context lengths of common embedding models of the Ollama library, by name without tag. */
const KNOWN_CONTEXT: Readonly<Record<string, number>> = {
  'nomic-embed-text': 8192,
  'mxbai-embed-large': 512,
  'all-minilm': 512,
  'snowflake-arctic-embed': 512,
  'bge-m3': 8192,
  'bge-large': 512,
  embeddinggemma: 2048,
};

/** Context length used for models km does not know. */
export const DEFAULT_EMBEDDING_CONTEXT = 2048;

/** A model's name without its namespace and tag: `library/nomic-embed-text:latest` → `nomic-embed-text`. */
function baseName(model: string): string {
  const name = model.slice(model.lastIndexOf('/') + 1);
  return name.includes(':') ? name.slice(0, name.indexOf(':')) : name;
}

function positiveInteger(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
    throw new InvalidInputError('invalid_argument', `${name} must be a positive integer, got ${value}`, { connector: CONNECTOR });
  }
  return value;
}

/**
 * Embeddings from an Ollama server through its native `/api/embed` endpoint, on the official
 * `ollama` client: a call is sent in batches of `batchSize` inputs, connection errors, 429 and
 * 5xx are retried with backoff, and a model that is not pulled fails with the command to run.
 *
 * ```ts
 * const embeddings = new OllamaEmbeddingGenerator({ model: 'nomic-embed-text' });
 * const [vector] = await embeddings.generateEmbeddings(['The canteen opens at 11:30.']);
 * ```
 */
export class OllamaEmbeddingGenerator implements ITextEmbeddingGenerator {
  readonly maxTokens: number;
  readonly modelName: string;
  readonly maxBatchSize: number;
  readonly tokenizer: ITextTokenizer;
  private readonly endpoint: OllamaEndpoint;
  private readonly configuredDimensions: number | undefined;
  private learnedDimensions: number | undefined;

  constructor(private readonly options: OllamaEmbeddingGeneratorOptions) {
    if (!options.model?.trim()) {
      throw new InvalidInputError('not_configured', 'an Ollama embedding model is required, e.g. nomic-embed-text', {
        connector: CONNECTOR,
      });
    }
    this.configuredDimensions = positiveInteger(options.dimensions, 'dimensions');
    this.maxTokens = positiveInteger(options.maxTokens, 'maxTokens') ?? KNOWN_CONTEXT[baseName(options.model)] ?? DEFAULT_EMBEDDING_CONTEXT;
    this.maxBatchSize = positiveInteger(options.batchSize, 'batchSize') ?? 32;
    this.tokenizer = options.tokenizer ?? new CL100KTokenizer();
    this.modelName = `ollama/${options.model}${options.dimensions !== undefined ? `@${options.dimensions}` : ''}`;
    this.endpoint = new OllamaEndpoint(options);
  }

  /** Size of the vectors: the one configured, else the one of the first response; undefined before it. */
  get dimensions(): number | undefined {
    return this.configuredDimensions ?? this.learnedDimensions;
  }

  async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal, 'embed');
    if (texts.length === 0) return [];
    texts.forEach((text, i) => this.check(text, i));
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.maxBatchSize) {
      vectors.push(...(await this.send(texts.slice(start, start + this.maxBatchSize), signal)));
    }
    return vectors;
  }

  /** Refuses an empty input, and one over `maxTokens` unless the server may cut it. */
  private check(text: string, i: number): void {
    if (typeof text !== 'string' || text.length === 0) {
      throw new InvalidInputError('empty_content', `input ${i} is empty; embeddings need text`, { connector: CONNECTOR });
    }
    const count = this.tokenizer.countTokens(text);
    if (count <= this.maxTokens) return;
    if (!this.options.truncate) {
      throw new InvalidInputError(
        'input_too_long',
        `input ${i} has about ${count} tokens; ${this.modelName} is set to ${this.maxTokens} (split the text, raise maxTokens within the model's context, or set truncate: true to let the server cut it)`,
        { connector: CONNECTOR },
      );
    }
    this.options.logger?.warn('embedding input over the context length, the server cuts it', {
      input: i,
      tokens: count,
      model: this.modelName,
    });
  }

  private async send(inputs: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const request: EmbedRequest = {
      model: this.options.model,
      input: inputs,
      truncate: this.options.truncate ?? false,
      options: { num_ctx: this.maxTokens },
      ...(this.endpoint.keepAlive !== undefined ? { keep_alive: this.endpoint.keepAlive } : {}),
      ...(this.configuredDimensions !== undefined ? { dimensions: this.configuredDimensions } : {}),
    };
    const response = await this.endpoint.send('embed', this.options.model, (client) => client.embed(request), signal);
    const embeddings = response?.embeddings;
    if (!Array.isArray(embeddings) || embeddings.length !== inputs.length) {
      throw new KmError(
        'upstream_error',
        `embed: sent ${inputs.length} inputs, got ${Array.isArray(embeddings) ? embeddings.length : 'no'} vectors`,
        {
          connector: CONNECTOR,
        },
      );
    }
    return embeddings.map((embedding, i) => this.vector(embedding, i));
  }

  /** One vector of a response, checked for shape and size; the first one fixes the size when none is configured. */
  private vector(embedding: unknown, i: number): Float32Array {
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new KmError('upstream_error', `embed: vector ${i} of the response is malformed`, { connector: CONNECTOR });
    }
    const expected = this.dimensions;
    if (expected !== undefined && embedding.length !== expected) {
      const why = this.configuredDimensions !== undefined ? 'configured' : 'learned from its first response';
      throw new KmError('vector_size_mismatch', `embed: expected ${expected} dimensions (${why}), got ${embedding.length}`, {
        connector: CONNECTOR,
      });
    }
    this.learnedDimensions ??= embedding.length;
    return Float32Array.from(embedding);
  }
}
