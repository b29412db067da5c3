import type { Options } from 'amqplib';

/** The names of a km queue's companions on the broker. */
export const QueueNames = {
  poison: (queue: string) => `${queue}-poison`,
  delay: (queue: string, delayMs: number) => `${queue}-delay-${delayMs}ms`,
};

/** The message header counting the deliveries of earlier copies of a retried message. */
export const ATTEMPTS_HEADER = 'x-km-attempts';

/**
 * The retry delay after the `attempt`-th failed delivery: `retryDelayMs × 2^(attempt−1)`,
 * at most `maxRetryDelayMs`. Each distinct delay is one delay queue (a tier).
 */
export function retryDelay(attempt: number, retryDelayMs: number, maxRetryDelayMs: number): number {
  return Math.min(maxRetryDelayMs, Math.round(retryDelayMs * 2 ** Math.max(0, attempt - 1)));
}

/**
 * Declarations of a km queue, its poison queue and a delay tier. Dead-lettering moves a
 * message from the main queue to `{queue}-poison` (rejected: fatal or out of attempts) and from
 * a delay queue back to the main queue (TTL expired). Every delay queue has one TTL for all its
 * messages, so no message waits behind a longer one, as per-message TTLs would. On quorum
 * queues dead-lettering is at-least-once, so a broker failure cannot drop a message on the way.
 */
export function queueArguments(type: 'quorum' | 'classic') {
  const reliable = type === 'quorum' ? { 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' } : {};
  return {
    /** A step queue, and a poison queue too: both are km queues, so any client may consume either with the same declaration. */
    queue: (queue: string): Options.AssertQueue => ({
      durable: true,
      arguments: { 'x-queue-type': type, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': QueueNames.poison(queue), ...reliable },
    }),
    delay: (queue: string, delayMs: number): Options.AssertQueue => ({
      durable: true,
      arguments: {
        'x-queue-type': type,
        'x-message-ttl': delayMs,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': queue,
        ...reliable,
      },
    }),
  };
}

/**
 * Deliveries of a message so far, this one included: those of its earlier copies (the header
 * a retry carries), plus redeliveries of this copy after a consumer died without
 * acknowledging (counted by quorum queues in `x-delivery-count`; classic queues only flag a
 * redelivery).
 */
export function deliveryAttempt(headers: Record<string, unknown> | undefined, redelivered: boolean): number {
  const failed = Number(headers?.[ATTEMPTS_HEADER] ?? 0);
  const deliveryCount = headers?.['x-delivery-count'];
  const redeliveries = typeof deliveryCount === 'number' ? deliveryCount : redelivered ? 1 : 0;
  return (Number.isFinite(failed) ? failed : 0) + redeliveries + 1;
}
