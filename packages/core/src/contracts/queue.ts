/** What a consumer reports after handling a message. */
export type QueueHandlerResult = 'ok' | 'transient' | 'fatal';

/** Options when connecting to a queue. */
export interface QueueConnectOptions {
  /** Start consuming messages with the registered handler. */
  dequeue: boolean;
}

/**
 * A message queue, one per pipeline step. `transient` results are retried with backoff;
 * `fatal`, or too many attempts, move the message to the queue's poison queue.
 */
export interface IQueue {
  connect(name: string, options: QueueConnectOptions): Promise<void>;
  enqueue(message: string): Promise<void>;
  onDequeue(handler: (message: string) => Promise<QueueHandlerResult>): void;
  close(): Promise<void>;
}
