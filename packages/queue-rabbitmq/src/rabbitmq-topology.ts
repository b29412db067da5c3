import { InvalidInputError } from '@km/core';
import { BackoffPolicy, poisonQueueName } from '@km/core/connector';
import type { Options } from 'amqplib';

/** The names of a km queue's companions on the broker. */
export const QueueNames = {
  poison: poisonQueueName,
  delay: (queue: string, delayMs: number) => `${queue}-delay-${delayMs}ms`,
};

/** The message header counting the deliveries of earlier copies of a retried message. */
export const ATTEMPTS_HEADER = 'x-km-attempts';

/** The retry delay after the `attempt`-th failed delivery, a tier (the engine waits the same: the transport declares no jitter); names the delay queue `QueueNames.delay(queue, retryDelay(...))`, e.g. to remove them. */
export function retryDelay(attempt: number, retryDelayMs: number, maxRetryDelayMs: number): number {
  return new BackoffPolicy({ initialDelayMs: retryDelayMs, maxDelayMs: maxRetryDelayMs, jitter: 'none' }).ceilingMs(attempt);
}

/**
 * Declarations of a km queue and a delay tier. Rejected messages dead-letter to `{queue}-poison`,
 * expired ones from a delay queue back to the queue: one TTL per delay queue, so no message waits
 * behind a longer one. On quorum queues dead-lettering is at-least-once.
 */
export function queueArguments(type: 'quorum' | 'classic' = 'quorum') {
  const reliable = type === 'quorum' ? { 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' } : {};
  const deadLetter = (to: string) => ({ 'x-queue-type': type, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': to, ...reliable });
  return {
    /** A step queue, and a poison queue too: any client may consume either with the same declaration. */
    queue: (queue: string): Options.AssertQueue => ({ durable: true, arguments: deadLetter(QueueNames.poison(queue)) }),
    delay: (queue: string, ms: number): Options.AssertQueue => ({
      durable: true,
      arguments: { ...deadLetter(queue), 'x-message-ttl': ms },
    }),
  };
}

/**
 * Deliveries of a message so far, this one included: its earlier copies' (the header a retry
 * carries) plus this copy's redeliveries (quorum queues count them; classic ones flag one).
 */
export function deliveryAttempt(headers: Record<string, unknown> | undefined, redelivered: boolean): number {
  const [failed, count] = [Number(headers?.[ATTEMPTS_HEADER] ?? 0), headers?.['x-delivery-count']];
  return (Number.isFinite(failed) ? failed : 0) + (typeof count === 'number' ? count : redelivered ? 1 : 0) + 1;
}

/** AMQP queue names: 1 to 255 bytes, `amq.` is reserved; km adds suffixes, so at most 200. */
export function checkQueueName(name: string): string {
  if (name.length > 0 && Buffer.byteLength(name) <= 200 && !name.startsWith('amq.') && !/[\u0000-\u001f]/.test(name)) return name;
  const message = `"${name}" cannot be a RabbitMQ queue name (1 to 200 bytes, not starting with "amq.")`;
  throw new InvalidInputError('invalid_argument', message, { connector: 'rabbitmq' });
}
