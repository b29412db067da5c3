// @km/core/connector: what connector authors need and applications do not.

// Retries
export { BackoffPolicy, type BackoffJitter, type BackoffOptions } from './retry/backoff-policy.js';
export { withRetries, isTransient, type WithRetriesOptions } from './retry/with-retries.js';
export { parseRetryAfterMs, type HeaderReader } from './retry/retry-after.js';
export { ConnectionKeeper, type ConnectionKeeperOptions, type ConnectionUseOptions } from './retry/connection-keeper.js';

// Queues
export { TransportQueue, type QueueConsumerOptions } from './queue/transport-queue.js';
export type {
  QueueTransport,
  QueueTransportCapabilities,
  QueueConsumerDefaults,
  TransportMessage,
  TransportOpenOptions,
} from './queue/queue-transport.js';
export { LeaseRenewal } from './queue/lease-renewal.js';
export { checkQueueConnect, type QueueClientState } from './queue/connect-checks.js';
