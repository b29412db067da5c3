/**
 * A transient failure whose next attempt should wait `retryAfterMs` (a backend said when to come
 * back: a `Retry-After`, a throttling hint). Queues treat it as `transient`, with that delay.
 */
export interface QueueRetryAfter {
  retryAfterMs: number;
}

/**
 * What a consumer reports after handling a message: `ok` (done), `transient` (retry it later,
 * with the queue's backoff or after `retryAfterMs`), `fatal` (move it to the poison queue).
 */
export type QueueHandlerResult = 'ok' | 'transient' | 'fatal' | QueueRetryAfter;

/**
 * Which delivery of a message a handler is given: its number (from 1, counted across crashes
 * where the backend can) and the queue's cap, after which the message is poisoned. A handler
 * that must record a failure (the distributed orchestrator marks the document failed) does so
 * on the last one.
 */
export interface QueueDelivery {
  attempt: number;
  maxAttempts: number;
}

/** Options when connecting to a queue. */
export interface QueueConnectOptions {
  /** Start consuming messages with the registered handler. */
  dequeue: boolean;
}

/**
 * A message queue, one per pipeline step. `transient` results are retried with backoff;
 * `fatal`, or too many attempts, move the message to the queue's poison queue. A queue that
 * does not read `retryAfterMs` may treat a {@link QueueRetryAfter} as plain `transient`.
 */
export interface IQueue {
  connect(name: string, options: QueueConnectOptions): Promise<void>;
  enqueue(message: string): Promise<void>;
  /** Registers the consumer; queues built on km's engine also tell it which delivery this is (see {@link QueueDelivery}). */
  onDequeue(handler: (message: string, delivery?: QueueDelivery) => Promise<QueueHandlerResult>): void;
  close(): Promise<void>;
}
