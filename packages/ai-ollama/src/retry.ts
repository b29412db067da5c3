import type { ConnectorRetryOptions } from '@km/core/connector';

/**
 * How requests are retried: core's {@link ConnectorRetryOptions}, with Ollama's own defaults
 * ({@link DEFAULT_RETRY}): 4 retries, 500 ms doubling, 30000 ms at most, a server's Retry-After
 * included.
 */
export type RetryOptions = ConnectorRetryOptions;

/** The retries of Ollama requests unless told otherwise. */
export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 30_000 };
