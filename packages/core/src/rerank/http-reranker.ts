import type { ITextReranker, RerankCandidate, RerankOptions, RerankResult } from '../contracts/text-reranker.js';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { BackoffPolicy } from '../retry/backoff-policy.js';
import { parseRetryAfterMs } from '../retry/retry-after.js';
import { isTransient, withRetries } from '../retry/with-retries.js';
import { RERANK_PROVIDERS, RERANK_WIRE_FORMATS, type RerankProvider, type RerankWireFormat } from './http-reranker-providers.js';

export type { RerankProvider } from './http-reranker-providers.js';

/** Options of an {@link HttpTextReranker}. */
export interface HttpTextRerankerOptions {
  /** Which API: `cohere` (v2), `jina` or `voyage`. */
  provider: RerankProvider;
  /** The API key, sent as `Authorization: Bearer`; never part of an error message. */
  apiKey: string;
  /** The rerank model. @default `rerank-v3.5` (Cohere), `jina-reranker-v2-base-multilingual` (Jina), `rerank-2` (Voyage) */
  model?: string;
  /** The API's root, e.g. a proxy or a compatible server; the provider's path (`/v2/rerank`, `/v1/rerank`) is appended. @default the provider's public API */
  baseUrl?: string;
  /** Longest time one rerank call may take, retries and their waits included, in ms. @default 30000 */
  timeoutMs?: number;
  /** Most candidates sent in one call; the ones past it (the least relevant by retrieval) are neither sent nor returned. @default 1000 */
  maxDocuments?: number;
  /** Retries after the first attempt, for 408, 429, 5xx and network failures. @default 3 */
  maxRetries?: number;
  /** Ceiling of the first retry's delay in ms, doubled each retry; a Retry-After header wins. @default 500 */
  retryDelayMs?: number;
}

/** Most characters of a provider's error body quoted in an error message. */
const MAX_DETAIL_CHARS = 300;

/**
 * Reranks with a hosted cross-encoder: Cohere (`POST /v2/rerank`), Jina (`POST /v1/rerank`) or
 * Voyage (`POST /v1/rerank`), over global fetch. Retries 408, 429 and 5xx answers and network
 * failures with backoff (honouring Retry-After) within `timeoutMs`; a refused key is
 * `unauthorized`, an exhausted rate limit `rate_limited`, any other failure or a malformed answer
 * `upstream_error` naming the provider and the HTTP status.
 *
 * ```ts
 * const reranker = new HttpTextReranker({ provider: 'cohere', apiKey: process.env.COHERE_API_KEY! });
 * const memory = new KernelMemoryBuilder().withReranker(reranker).build();
 * ```
 */
export class HttpTextReranker implements ITextReranker {
  readonly name: string;
  readonly provider: RerankProvider;
  readonly model: string;
  private readonly wire: RerankWireFormat;
  private readonly url: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxDocuments: number;
  private readonly maxRetries: number;
  private readonly backoff: BackoffPolicy;

  constructor(options: HttpTextRerankerOptions) {
    if (!RERANK_PROVIDERS.includes(options?.provider)) {
      throw new InvalidInputError(
        'invalid_argument',
        `reranker provider must be one of ${RERANK_PROVIDERS.join(', ')}, got ${JSON.stringify(options?.provider)}`,
      );
    }
    this.provider = options.provider;
    this.wire = RERANK_WIRE_FORMATS[this.provider];
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new InvalidInputError('invalid_argument', `the ${this.provider} reranker needs an apiKey`);
    }
    this.apiKey = options.apiKey;
    const model = options.model ?? this.wire.defaultModel;
    if (typeof model !== 'string' || model.trim() === '') {
      throw new InvalidInputError('invalid_argument', `the ${this.provider} reranker's model must be a non-empty string`);
    }
    this.model = model;
    this.name = `${this.provider}/${model}`;
    this.url = endpoint(options.baseUrl ?? this.wire.defaultBaseUrl, this.wire.path);
    this.timeoutMs = integerAtLeast(1, options.timeoutMs ?? 30_000, 'timeoutMs');
    this.maxDocuments = integerAtLeast(1, options.maxDocuments ?? 1000, 'maxDocuments');
    this.maxRetries = integerAtLeast(0, options.maxRetries ?? 3, 'maxRetries');
    this.backoff = new BackoffPolicy({ initialDelayMs: options.retryDelayMs ?? 500, maxDelayMs: this.timeoutMs, jitter: 'equal' });
  }

  async rerank(query: string, candidates: readonly RerankCandidate[], options: RerankOptions = {}): Promise<RerankResult[]> {
    const { signal } = options;
    if (signal?.aborted)
      throw new KmError('aborted', `${this.provider} rerank: aborted`, { connector: this.provider, cause: signal.reason });
    if (options.top !== undefined && (!Number.isInteger(options.top) || options.top < 0)) {
      throw new InvalidInputError('invalid_argument', `top must be an integer >= 0, got ${String(options.top)}`);
    }
    const documents = candidates.slice(0, this.maxDocuments).map((c) => c.text);
    const top = Math.min(options.top ?? documents.length, documents.length);
    if (top === 0) return [];
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const body = JSON.stringify(this.wire.body(this.model, query, documents, top));
    try {
      const results = await withRetries(() => this.once(body, documents.length, combined), {
        maxAttempts: this.maxRetries + 1,
        backoff: this.backoff,
        isRetryable: isTransient,
        signal: combined,
      });
      return results.slice(0, top);
    } catch (e) {
      if (signal?.aborted) throw new KmError('aborted', `${this.provider} rerank: aborted`, { connector: this.provider, cause: e });
      if (timeout.aborted) {
        throw new KmError('transient', `${this.provider} rerank: no answer within ${this.timeoutMs} ms (timeoutMs)`, {
          connector: this.provider,
          transient: true,
          cause: e,
        });
      }
      throw e;
    }
  }

  /** One POST: the results best first, or a typed error (`transient` when another try may succeed). */
  private async once(body: string, sent: number, signal: AbortSignal): Promise<RerankResult[]> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal,
      });
    } catch (e) {
      if (signal.aborted) throw e;
      throw new KmError('transient', `${this.provider} rerank: ${this.redact(errorText(e))}`, {
        connector: this.provider,
        transient: true,
        cause: e,
      });
    }
    if (!response.ok) throw await this.httpError(response);
    let answer: unknown;
    try {
      answer = await response.json();
    } catch (e) {
      if (signal.aborted) throw e;
      throw this.malformed('the body is not JSON');
    }
    return this.resultsOf(answer, sent);
  }

  private async httpError(response: Response): Promise<KmError> {
    const status = response.status;
    const detail = this.redact((await response.text().catch(() => '')).slice(0, MAX_DETAIL_CHARS).trim());
    const message = `${this.provider} rerank answered HTTP ${status}${detail ? `: ${detail}` : ''}`;
    const connector = this.provider;
    if (status === 401 || status === 403) {
      return new KmError('unauthorized', `${message} (check the API key)`, { connector });
    }
    const transient = status === 408 || status === 429 || status >= 500;
    const retryAfterMs = transient ? parseRetryAfterMs(response.headers) : undefined;
    return new KmError(status === 429 ? 'rate_limited' : 'upstream_error', message, { connector, transient, retryAfterMs });
  }

  /** Checks the answer's list (indexes in range and unique, finite scores) and sorts it best first. */
  private resultsOf(answer: unknown, sent: number): RerankResult[] {
    const field = this.wire.listField;
    const list = answer && typeof answer === 'object' ? (answer as Record<string, unknown>)[field] : undefined;
    if (!Array.isArray(list)) throw this.malformed(`no '${field}' list`);
    const seen = new Set<number>();
    const results: RerankResult[] = [];
    for (const item of list) {
      const { index, relevance_score: score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown };
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= sent || seen.has(index)) {
        throw this.malformed(`index ${JSON.stringify(index)} is not one of the ${sent} documents sent, or is repeated`);
      }
      if (typeof score !== 'number' || !Number.isFinite(score)) {
        throw this.malformed(`relevance_score ${JSON.stringify(score)} of index ${index} is not a finite number`);
      }
      seen.add(index);
      results.push({ index, score });
    }
    return results.sort((a, b) => b.score - a.score || a.index - b.index);
  }

  private malformed(why: string): KmError {
    return new KmError('upstream_error', `${this.provider} rerank answered a malformed body: ${why}`, { connector: this.provider });
  }

  /** The text with the API key blanked out, should a server or proxy echo it. */
  private redact(text: string): string {
    return text.split(this.apiKey).join('***');
  }
}

function endpoint(baseUrl: string, path: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidInputError('invalid_argument', `reranker baseUrl ${JSON.stringify(baseUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidInputError('invalid_argument', `reranker baseUrl must be http or https, got ${url.protocol}`);
  }
  return `${url.href.replace(/\/+$/, '')}${path}`;
}

function integerAtLeast(min: number, value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidInputError('invalid_argument', `reranker ${name} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

function errorText(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return e instanceof Error ? `${e.message}${cause}` : String(e);
}
