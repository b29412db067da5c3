import { InvalidInputError, KmError } from '../errors/km-error.js';
import type { Logger } from '../util/logger.js';
import { BackoffPolicy } from './backoff-policy.js';
import { withRetries } from './with-retries.js';

/**
 * How a connector retries its requests (the `retry` option of the AI providers). A provider may
 * document other defaults than these (Ollama: 4 retries, 30 s at most).
 */
export interface ConnectorRetryOptions {
  /** Retries after the first attempt; 0 tries once. @default 5 */
  maxRetries?: number;
  /** Ceiling of the first delay, in ms; it doubles each retry. @default 500 */
  initialDelayMs?: number;
  /** Longest delay between two attempts, in ms, a server's Retry-After included. @default 60000 */
  maxDelayMs?: number;
}

/** The defaults of {@link ConnectorRetryOptions}: 5 retries, 500 ms doubling, 60 s at most. */
export const DEFAULT_CONNECTOR_RETRY: Readonly<Required<ConnectorRetryOptions>> = Object.freeze({
  maxRetries: 5,
  initialDelayMs: 500,
  maxDelayMs: 60_000,
});

/**
 * `given` with what it leaves out taken from `defaults`, checked: `maxRetries` must be an
 * integer ≥ 0 and the delays finite numbers ≥ 0 (an `invalid_argument` KmError otherwise).
 *
 * ```ts
 * const retry = resolveRetryOptions(options.retry, { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 30_000 });
 * ```
 */
export function resolveRetryOptions(
  given: ConnectorRetryOptions | undefined,
  defaults: Required<ConnectorRetryOptions> = DEFAULT_CONNECTOR_RETRY,
): Required<ConnectorRetryOptions> {
  const resolved = {
    maxRetries: given?.maxRetries ?? defaults.maxRetries,
    initialDelayMs: given?.initialDelayMs ?? defaults.initialDelayMs,
    maxDelayMs: given?.maxDelayMs ?? defaults.maxDelayMs,
  };
  if (!Number.isInteger(resolved.maxRetries) || resolved.maxRetries < 0) {
    throw new InvalidInputError('invalid_argument', `retry.maxRetries must be an integer >= 0, got ${String(resolved.maxRetries)}`);
  }
  connectorBackoff(resolved); // checks the delays
  return resolved;
}

/**
 * The backoff of connector requests: core's {@link BackoffPolicy} with equal jitter (between
 * half and all of the ceiling, so a rate-limited client always waits a little), or the server's
 * Retry-After, capped at `maxDelayMs`. Missing options take {@link DEFAULT_CONNECTOR_RETRY}'s.
 *
 * ```ts
 * connectorBackoff({ initialDelayMs: 100, maxDelayMs: 1000 }).delayMs(1); // in [50, 100]
 * ```
 */
export function connectorBackoff(options: ConnectorRetryOptions = {}, random?: () => number): BackoffPolicy {
  return new BackoffPolicy(
    {
      initialDelayMs: options.initialDelayMs ?? DEFAULT_CONNECTOR_RETRY.initialDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_CONNECTOR_RETRY.maxDelayMs,
      jitter: 'equal',
    },
    random,
  );
}

/** HTTP statuses worth retrying: timeouts (408), conflicts (409), rate limits (429) and server errors (5xx, 529 included). */
export function isRetryableHttpStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Options of {@link withConnectorRetries}. */
export interface ConnectorRetriesOptions {
  /** The connector's name, e.g. `openai`: it names the log line and an abort during a backoff. */
  connector: string;
  /** What the request is, e.g. `embeddings`: logged, and in an abort's message. */
  what: string;
  /** Missing options take {@link DEFAULT_CONNECTOR_RETRY}'s; a provider passes its own resolved ones. */
  retry?: ConnectorRetryOptions | undefined;
  /**
   * The connector's translator: whatever an attempt threw (SDK errors, fetch errors, an abort)
   * to a KmError, `transient: true` when another try may succeed, `retryAfterMs` when the
   * server said how long to wait. A KmError an attempt throws is kept as it is.
   */
  toKmError: (error: unknown) => KmError;
  /** Stops the request and the waiting at once; the call then rejects with `aborted`. */
  signal?: AbortSignal | undefined;
  /** Told with `warn` before each retry. */
  logger?: Logger | undefined;
}

/**
 * Runs `attempt` until it succeeds, throws an error its translator calls fatal, or the retries
 * are spent, waiting as {@link connectorBackoff} says, or as long as the server asked (the
 * translated error's `retryAfterMs`, capped at `maxDelayMs`). Every error leaves as a KmError
 * from `toKmError`; the last transient one keeps `transient: true`, so a pipeline can retry the
 * whole step later. Each retry is logged as `<connector> request failed, retrying`.
 *
 * ```ts
 * const result = await withConnectorRetries(() => client.embeddings.create(body, { signal }), {
 *   connector: 'openai',
 *   what: 'embeddings',
 *   retry: { maxRetries: 5, initialDelayMs: 500, maxDelayMs: 60_000 },
 *   toKmError: (e) => toKmError(e, 'embeddings', signal),
 *   signal,
 *   logger,
 * });
 * ```
 */
export async function withConnectorRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: ConnectorRetriesOptions,
): Promise<T> {
  const { connector, what, signal, logger } = options;
  const retry = resolveRetryOptions(options.retry);
  const translate = (e: unknown): KmError => (e instanceof KmError ? e : options.toKmError(e));
  let waiting = false;
  try {
    return await withRetries(
      async (n) => {
        waiting = false;
        try {
          return await attempt(n);
        } catch (e) {
          throw translate(e);
        }
      },
      {
        maxAttempts: retry.maxRetries + 1,
        backoff: connectorBackoff(retry),
        signal,
        onRetry: ({ error, retry: number, delayMs }) => {
          waiting = true;
          logger?.warn(`${connector} request failed, retrying`, { what, retry: number, delayMs, error: (error as Error).message });
        },
      },
    );
  } catch (e) {
    // withRetries' own abort of a backoff names no connector: say whose request it was.
    if (waiting && e instanceof KmError && e.code === 'aborted' && e.connector === undefined) {
      throw new KmError('aborted', `${what}: aborted while waiting to retry`, { connector, cause: e.cause });
    }
    throw translate(e);
  }
}
