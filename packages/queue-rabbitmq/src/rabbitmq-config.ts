import type { QueueConsumerOptions } from '@km/core/connector';

/** Options of {@link RabbitMqQueue}, beside the engine's (`maxAttempts` 5, `concurrency` as the prefetch, `logger`...). Every client of one queue should use the same values. */
export interface RabbitMqQueueOptions extends QueueConsumerOptions {
  /** AMQP URL, with credentials and vhost. @default 'amqp://guest:guest@127.0.0.1:5672' */
  url?: string;
  /** `quorum` (replicated, the default where the server supports it) or `classic`. @default 'quorum' */
  queueType?: 'quorum' | 'classic';
  /** Prepended to every queue name, e.g. `km.` to group km's queues on a shared broker. @default '' */
  queuePrefix?: string;
  /** Delay before the first retry of a transient failure, in ms, doubled each attempt up to `maxRetryDelayMs`; no jitter: each distinct delay is a delay queue (a tier). @default 1000 */
  retryDelayMs?: number;
  /** AMQP heartbeat, in seconds, so a dead peer is noticed. @default 15 */
  heartbeatSeconds?: number;
  /** Time to open a connection, in ms. @default 10000 */
  connectTimeoutMs?: number;
  /** Ceiling of the first wait between reconnections, in ms, doubled up to 10 s; equal jitter (at least half of it) spreads workers. @default 250 */
  reconnectDelayMs?: number;
  /** How long `enqueue` waits for a connection and the broker's confirm, in ms. @default 30000 */
  publishTimeoutMs?: number;
}

/** The URL to connect to, with the heartbeat unless the URL sets one. */
export function amqpUrl({ url = 'amqp://guest:guest@127.0.0.1:5672', heartbeatSeconds = 15 }: RabbitMqQueueOptions): string {
  return /[?&]heartbeat=/.test(url) ? url : `${url}${url.includes('?') ? '&' : '?'}heartbeat=${Math.max(0, Math.floor(heartbeatSeconds))}`;
}
