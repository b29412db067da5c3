import { InvalidInputError, type Logger } from '@km/core';
import { parseRetryAfterMs, resolveRetryOptions, withConnectorRetries } from '@km/core/connector';
import { Ollama } from 'ollama';
import { CONNECTOR, toKmError } from './errors.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry.js';

/** Where Ollama listens unless told otherwise. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** The options every generator of this package takes to reach its server. */
export interface OllamaEndpointOptions {
  /** The Ollama server. @default 'http://127.0.0.1:11434' */
  host?: string;
  /**
   * How long the server keeps the model in memory after a request (`keep_alive`): a duration
   * such as `'5m'` or `'1h'`, seconds as a number, `0` to unload at once, a negative number to
   * keep it loaded. @default the server's (5 minutes, or its OLLAMA_KEEP_ALIVE)
   */
  keepAlive?: string | number;
  /** Headers sent with every request, e.g. the Authorization of a proxy in front of Ollama. */
  headers?: Record<string, string>;
  /** km's retries. @default { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 30000 } */
  retry?: RetryOptions;
  logger?: Logger;
  /** The fetch requests go through (a proxy agent, instrumentation). @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** A request in progress: its result, and `close()`, which ends the HTTP exchange (a no-op once the body is read). */
export interface OpenedRequest<T> {
  value: T;
  close(): void;
}

/** A duration of `keep_alive` as Ollama reads it: digits alone are seconds (a number), anything else a Go duration string. */
export function keepAliveValue(keepAlive: string | number | undefined): string | number | undefined {
  if (typeof keepAlive === 'string' && /^-?\d+$/.test(keepAlive.trim())) return Number(keepAlive.trim());
  return keepAlive;
}

/**
 * One generator's way to its server. The `ollama` client takes no AbortSignal per request (only
 * `abort()` on a stream, or on every stream of a client), so each attempt gets its own client,
 * whose fetch carries a signal that the caller's signal aborts: an abort stops a request, a
 * response body being read, or a backoff, at once. Clients hold no connections of their own
 * (Node's fetch pools them), so one per request costs nothing.
 */
export class OllamaEndpoint {
  /** The server, as given (for messages). */
  readonly host: string;
  readonly keepAlive: string | number | undefined;
  private readonly retry: Required<RetryOptions>;

  constructor(private readonly options: OllamaEndpointOptions) {
    this.host = (options.host || DEFAULT_OLLAMA_HOST).replace(/\/+$/, '');
    this.keepAlive = keepAliveValue(options.keepAlive);
    this.retry = resolveRetryOptions(options.retry, DEFAULT_RETRY);
    try {
      new Ollama({ host: this.host });
    } catch (e) {
      throw new InvalidInputError('invalid_argument', `host ${JSON.stringify(options.host)} is not a URL`, {
        connector: CONNECTOR,
        cause: e,
      });
    }
  }

  /** Sends one request with km's retries; `what` names it in errors and logs, `model` in the "not pulled" message. */
  async send<T>(what: string, model: string, request: (client: Ollama) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const opened = await this.open(what, model, request, signal);
    opened.close();
    return opened.value;
  }

  /**
   * Like {@link send}, for a request whose response is read after it returns (a stream): the
   * caller's signal keeps reaching it until `close()`, which the caller must call.
   */
  async open<T>(
    what: string,
    model: string,
    request: (client: Ollama) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<OpenedRequest<T>> {
    return withConnectorRetries(
      async () => {
        const attempt = this.attempt(signal);
        try {
          return { value: await request(attempt.client), close: attempt.close };
        } catch (e) {
          attempt.close();
          // Translated here: the Retry-After is in this attempt's response.
          throw toKmError(e, { what, host: this.host, model, signal, retryAfterMs: parseRetryAfterMs(attempt.lastResponse()?.headers) });
        }
      },
      {
        connector: CONNECTOR,
        what,
        retry: this.retry,
        // An abort before the first attempt.
        toKmError: (e) => toKmError(e, { what, host: this.host, model, signal }),
        signal,
        logger: this.options.logger,
      },
    );
  }

  /** A client for one attempt, its last HTTP response (for Retry-After), and `close()`, which aborts what is left of it. */
  private attempt(signal: AbortSignal | undefined): { client: Ollama; lastResponse: () => Response | undefined; close: () => void } {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const baseFetch = this.options.fetch ?? globalThis.fetch;
    let last: Response | undefined;
    const boundFetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
      // The client's own signal (a stream's abort()) ends the attempt too.
      init?.signal?.addEventListener('abort', () => controller.abort(init.signal?.reason), { once: true });
      last = await baseFetch(input, { ...init, signal: controller.signal });
      return asJsonError(last);
    };
    const client = new Ollama({ host: this.host, fetch: boundFetch, ...(this.options.headers ? { headers: this.options.headers } : {}) });
    return {
      client,
      lastResponse: () => last,
      close: () => {
        signal?.removeEventListener('abort', onAbort);
        controller.abort();
      },
    };
  }
}

/**
 * An error answer that is not JSON (a proxy's HTML page, a plain `404 page not found`) as
 * Ollama's `{"error": "..."}`: the client then reads it without printing to stdout, which it
 * does for other bodies.
 */
async function asJsonError(response: Response): Promise<Response> {
  if (response.ok || response.headers.get('content-type')?.includes('application/json')) return response;
  const text = (await response.text().catch(() => '')).trim().slice(0, 500);
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify({ error: text || `${response.status} ${response.statusText}`.trim() }), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
