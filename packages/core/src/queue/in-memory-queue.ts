import type { Logger } from '../util/logger.js';
import { InMemoryQueueBroker } from './in-memory-queue-broker.js';
import { type InMemoryMessage, InMemoryQueueTransport } from './in-memory-queue-transport.js';
import { TransportQueue } from './transport-queue.js';

/** Options of {@link InMemoryQueue}. */
export interface InMemoryQueueOptions {
  /** Shared state; queues with the same broker see the same messages. @default a process-wide broker */
  broker?: InMemoryQueueBroker;
  /** Deliveries of a message before it moves to the poison queue. @default 3 */
  maxAttempts?: number;
  /**
   * Delay before a transient failure is retried, in ms, doubled each attempt. No jitter: one
   * process has no crowd of consumers to spread, and tests can rely on the delay. @default 100
   */
  retryDelayMs?: number;
  /** Longest retry delay, in ms. @default 60000 */
  maxRetryDelayMs?: number;
  /** Messages handled at once by this client. @default 1 */
  concurrency?: number;
  /** Told about handler errors and poisoned messages. @default silentLogger */
  logger?: Logger;
}

const defaultBroker = new InMemoryQueueBroker();

/**
 * A queue in process memory, for tests and single-process use. A `transient` result or a
 * throwing handler retries the message with backoff; `fatal`, or `maxAttempts` deliveries,
 * move it to `{name}-poison`. Closing a client returns its unacknowledged messages.
 *
 * ```ts
 * const queue = new InMemoryQueue();
 * queue.onDequeue(async (message) => (await handle(message), 'ok'));
 * await queue.connect('extract', { dequeue: true });
 * await queue.enqueue(JSON.stringify({ index: 'default', document_id: 'doc1' }));
 * ```
 */
export class InMemoryQueue extends TransportQueue<InMemoryMessage> {
  constructor(options: InMemoryQueueOptions = {}) {
    super(new InMemoryQueueTransport(options.broker ?? defaultBroker), options);
  }
}
