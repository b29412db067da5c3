import type { Logger } from '@km/core';

/** Options of {@link RabbitMqQueue}. Every client of one queue should use the same values. */
export interface RabbitMqQueueOptions {
  /** AMQP URL, with credentials and vhost. @default 'amqp://guest:guest@127.0.0.1:5672' */
  url?: string;
  /** `quorum` (replicated, the default where the server supports it) or `classic`. @default 'quorum' */
  queueType?: 'quorum' | 'classic';
  /** Prepended to every queue name, e.g. `km.` to group km's queues on a shared broker. @default '' */
  queuePrefix?: string;
  /** Deliveries of a message before it moves to the poison queue. @default 5 */
  maxAttempts?: number;
  /** Delay before the first retry of a transient failure, doubled each attempt (one delay queue per tier). @default 1000 */
  retryDelayMs?: number;
  /** Longest retry delay. @default 60000 */
  maxRetryDelayMs?: number;
  /** Messages handled at once by this client (the channel's prefetch). @default 1 */
  concurrency?: number;
  /** AMQP heartbeat, so a dead peer is noticed. @default 15 */
  heartbeatSeconds?: number;
  /** Time to open a connection. @default 10000 */
  connectTimeoutMs?: number;
  /** First delay between reconnection attempts, doubled up to 10 s. @default 250 */
  reconnectDelayMs?: number;
  /** How long `enqueue` waits for a connection and the broker's confirm. @default 30000 */
  publishTimeoutMs?: number;
  /** Told about connection losses, reconnections and channel errors. */
  logger?: Logger;
}
