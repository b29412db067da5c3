import { InvalidInputError, KmError, type ITextEmbeddingGenerator, type ITextTokenizer } from '@km/core';
import { mapWithConcurrency } from '@km/core/connector';
import { modelIdentity } from './connection.js';
import { CONNECTOR } from './errors.js';
import { EMBEDDINGS_REQUEST_LIMITS, embeddingModelInfo } from './model-catalog.js';
import { OpenAIModelApi, type OpenAIEndpointOptions } from './openai-model-api.js';
import { modelNamePrefix } from './provider-names.js';
import { tokenizerForModel } from './tokenizers.js';

/** Options of {@link OpenAIEmbeddingGenerator}. */
export interface OpenAIEmbeddingGeneratorOptions extends OpenAIEndpointOptions {
  /** Model name, e.g. `text-embedding-3-small`. On Azure, the model behind the deployment (for its limits); defaults to the deployment name. */
  model?: string;
  /** Shortened embeddings, for models that take `dimensions` (text-embedding-3-*). */
  dimensions?: number;
  /** Longest input, in tokens. @default the model's limit, or 8191 for unknown models */
  maxTokens?: number;
  /** Cut inputs over `maxTokens` instead of failing. @default false */
  truncate?: boolean;
  /** Texts the pipeline sends per call. @default 100 */
  maxBatchSize?: number;
  /** Inputs per HTTP request. @default 2048 (OpenAI's limit) */
  maxInputsPerRequest?: number;
  /** Tokens per HTTP request, all inputs together. @default 300000 (OpenAI's limit) */
  maxTokensPerRequest?: number;
  /** HTTP requests in flight per call. @default 4 */
  maxParallelRequests?: number;
  tokenizer?: ITextTokenizer;
}

interface EmbeddingRequest {
  start: number;
  inputs: string[];
}

/**
 * Embeddings from OpenAI, Azure OpenAI or an OpenAI-compatible server, on the official SDK.
 * Each call is split into requests that respect the endpoint's input and token limits and
 * sent a few at a time; 429 and 5xx are retried with backoff honouring `Retry-After`.
 *
 * ```ts
 * const embeddings = new OpenAIEmbeddingGenerator({
 *   connection: { apiKey: process.env.OPENAI_API_KEY! },
 *   model: 'text-embedding-3-small',
 * });
 * ```
 */
export class OpenAIEmbeddingGenerator implements ITextEmbeddingGenerator {
  readonly maxTokens: number;
  readonly dimensions: number | undefined;
  readonly modelName: string;
  readonly maxBatchSize: number;
  readonly tokenizer: ITextTokenizer;
  private readonly api: OpenAIModelApi;
  private readonly sendDimensions: boolean;

  constructor(private readonly options: OpenAIEmbeddingGeneratorOptions) {
    const { requestModel, name } = modelIdentity(options.connection, options.model);
    const info = embeddingModelInfo(name);
    if (options.dimensions !== undefined && (!Number.isInteger(options.dimensions) || options.dimensions <= 0)) {
      throw new InvalidInputError('invalid_argument', `dimensions must be a positive integer, got ${options.dimensions}`, {
        connector: CONNECTOR,
      });
    }
    if (options.dimensions !== undefined && info && !info.supportsDimensions && options.dimensions !== info.dimensions) {
      throw new InvalidInputError('invalid_argument', `${name} does not take a dimensions parameter`, { connector: CONNECTOR });
    }
    this.sendDimensions = options.dimensions !== undefined && (info?.supportsDimensions ?? true);
    this.dimensions = options.dimensions ?? info?.dimensions;
    this.maxTokens = options.maxTokens ?? info?.maxTokens ?? 8191;
    this.maxBatchSize = options.maxBatchSize ?? 100;
    this.tokenizer = options.tokenizer ?? tokenizerForModel(name);
    this.modelName = `${modelNamePrefix(options.connection)}/${name}${options.dimensions !== undefined ? `@${options.dimensions}` : ''}`;
    this.api = new OpenAIModelApi(requestModel, options);
  }

  async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const requests = this.plan(texts);
    const results = new Array<Float32Array>(texts.length);
    await mapWithConcurrency(requests, this.options.maxParallelRequests ?? 4, async (request) => {
      const vectors = await this.send(request.inputs, signal);
      vectors.forEach((v, i) => (results[request.start + i] = v));
    });
    return results;
  }

  /** Checks (or cuts) each input, then packs them into requests within the endpoint's limits. */
  private plan(texts: string[]): EmbeddingRequest[] {
    const maxInputs = Math.max(1, this.options.maxInputsPerRequest ?? EMBEDDINGS_REQUEST_LIMITS.maxInputs);
    const maxTokens = this.options.maxTokensPerRequest ?? EMBEDDINGS_REQUEST_LIMITS.maxTokens;
    const requests: EmbeddingRequest[] = [];
    let current: EmbeddingRequest | undefined;
    let tokens = 0;
    texts.forEach((original, i) => {
      if (typeof original !== 'string' || original.length === 0) {
        throw new InvalidInputError('empty_content', `input ${i} is empty; embeddings need text`, { connector: CONNECTOR });
      }
      let text = original;
      let count = this.tokenizer.countTokens(text);
      if (count > this.maxTokens) {
        if (!this.options.truncate) {
          throw new InvalidInputError(
            'input_too_long',
            `input ${i} has ${count} tokens; ${this.modelName} accepts at most ${this.maxTokens} (split the text, or set truncate: true to cut it)`,
            { connector: CONNECTOR },
          );
        }
        text = this.tokenizer.getTokens(text).slice(0, this.maxTokens).join('');
        count = this.maxTokens;
        this.options.logger?.warn('embedding input truncated', { input: i, tokens: count, model: this.modelName });
      }
      // An input larger than the per-request budget still goes, alone in its request.
      if (!current || current.inputs.length >= maxInputs || (current.inputs.length > 0 && tokens + count > maxTokens)) {
        current = { start: i, inputs: [] };
        requests.push(current);
        tokens = 0;
      }
      current.inputs.push(text);
      tokens += count;
    });
    return requests;
  }

  private async send(inputs: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const response = await this.api.send(
      'embeddings',
      (client) =>
        client.embeddings.create(
          {
            model: this.api.requestModel,
            input: inputs,
            encoding_format: 'float',
            ...(this.sendDimensions ? { dimensions: this.options.dimensions } : {}),
          },
          { signal },
        ),
      signal,
    );
    const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== inputs.length) {
      throw new KmError('upstream_error', `embeddings: sent ${inputs.length} inputs, got ${data.length} vectors`, { connector: CONNECTOR });
    }
    return data.map((item, i) => {
      if (item.index !== i || !Array.isArray(item.embedding)) {
        throw new KmError('upstream_error', `embeddings: response item ${i} is malformed`, { connector: CONNECTOR });
      }
      if (this.dimensions !== undefined && item.embedding.length !== this.dimensions) {
        throw new KmError('vector_size_mismatch', `embeddings: expected ${this.dimensions} dimensions, got ${item.embedding.length}`, {
          connector: CONNECTOR,
        });
      }
      return Float32Array.from(item.embedding);
    });
  }
}
