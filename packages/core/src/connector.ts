// @km/core/connector: what connector authors need and applications do not.

// Retries
export { BackoffPolicy, type BackoffJitter, type BackoffOptions } from './retry/backoff-policy.js';
export { withRetries, isTransient, type WithRetriesOptions } from './retry/with-retries.js';
export { parseRetryAfterMs, type HeaderReader } from './retry/retry-after.js';
