// @km/core/connector: what connector authors need and applications do not.

// Memory DB drivers
export {
  DEFAULT_CAPABILITIES,
  driverCapabilities,
  type DriverList,
  type DriverSearch,
  type MemoryDbDriver,
} from './memory-storage/memory-db-driver.js';

export type { CheckedRecord } from './memory-storage/record-input.js';
export { compareRecordIds } from './memory-storage/result-order.js';
export { l2norm } from './memory-storage/vector-math.js';
export { encodeTag, encodeTags, decodeTags } from './models/tag-encoding.js';
export { indexNamesUnderPrefix, isNormalizedIndexName } from './validation/index-name.js';

// Retries
export { BackoffPolicy, type BackoffJitter, type BackoffOptions } from './retry/backoff-policy.js';
export { withRetries, isTransient, type WithRetriesOptions } from './retry/with-retries.js';
export { parseRetryAfterMs, type HeaderReader } from './retry/retry-after.js';
