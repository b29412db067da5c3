import type { ConnectorRetryOptions } from '@km/core/connector';

/**
 * How requests are retried: core's {@link ConnectorRetryOptions}.
 * Defaults here: 5 retries, 500 ms doubling, 60000 ms at most ({@link DEFAULT_RETRY}).
 */
export type RetryOptions = ConnectorRetryOptions;

/** The retries of OpenAI requests unless told otherwise. */
export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 5, initialDelayMs: 500, maxDelayMs: 60_000 };
