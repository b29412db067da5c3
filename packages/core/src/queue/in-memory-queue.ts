import { randomUUID } from 'node:crypto';
import type { IQueue, QueueConnectOptions, QueueHandlerResult } from '../contracts/queue.js';
import { InvalidInputError, KmError } from '../errors/km-error.js';

interface QueuedMessage {
  id: string;
  body: string;
  /** Deliveries so far. */
  attempts: number;
}

interface BrokerQueue {
  ready: QueuedMessage[];
  /** Wakes consumers waiting for messages. */
  waiters: Set<() => void>;
}

/**
 * The shared state of in-memory queues: queues outlive the clients connected to them, so a
 * message a closed consumer never acknowledged is delivered to the next one.
 */
export class InMemoryQueueBroker {
  private readonly queues = new Map<string, BrokerQueue>();

  /** @internal */
  queue(name: string): BrokerQueue {
    let q = this.queues.get(name);
    if (!q) this.queues.set(name, (q = { ready: [], waiters: new Set() }));
    return q;
  }

  /** @internal Adds a message at the tail (or the head, for a message returned unacknowledged). */
  push(name: string, message: QueuedMessage, atHead = false): void {
    const q = this.queue(name);
    if (atHead) q.ready.unshift(message);
    else q.ready.push(message);
    for (const wake of q.waiters) wake();
  }

  /** Messages waiting in a queue (not in flight). */
  size(name: string): number {
    return this.queues.get(name)?.ready.length ?? 0;
  }
}

/** Options of {@link InMemoryQueue}. */
export interface InMemoryQueueOptions {
  /** Shared state; queues with the same broker see the same messages. @default a process-wide broker */
  broker?: InMemoryQueueBroker;
  /** Deliveries of a message before it moves to the poison queue. @default 3 */
  maxAttempts?: number;
  /** Delay before a transient failure is retried, doubled each attempt. @default 100 */
  retryDelayMs?: number;
  /** Messages handled at once by this client. @default 1 */
  concurrency?: number;
}

const defaultBroker = new InMemoryQueueBroker();

/** Name of the queue that receives a queue's poisoned messages. */
export const poisonQueueName = (name: string): string => `${name}-poison`;

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
export class InMemoryQueue implements IQueue {
  private readonly broker: InMemoryQueueBroker;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly concurrency: number;
  private name: string | undefined;
  private handler: ((message: string) => Promise<QueueHandlerResult>) | undefined;
  private consuming = false;
  private closed = false;
  private readonly inFlight = new Set<QueuedMessage>();
  /** Messages waiting for their retry delay, returned to the queue if this client closes first. */
  private readonly retries = new Map<NodeJS.Timeout, QueuedMessage>();
  private wake: (() => void) | undefined;
  private started = false;

  constructor(options: InMemoryQueueOptions = {}) {
    this.broker = options.broker ?? defaultBroker;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
  }

  async connect(name: string, options: QueueConnectOptions): Promise<void> {
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(name)) {
      throw new InvalidInputError('invalid_argument', `queue name ${JSON.stringify(name)} is invalid: lower-case letters, digits, - and _`);
    }
    this.name = name;
    this.broker.queue(name);
    if (options.dequeue) {
      this.consuming = true;
      this.startWorkers();
    }
  }

  async enqueue(message: string): Promise<void> {
    if (this.closed) throw new KmError('invalid_argument', 'queue is closed');
    if (!this.name) throw new KmError('invalid_argument', 'connect the queue before enqueueing');
    this.broker.push(this.name, { id: randomUUID(), body: message, attempts: 0 });
  }

  onDequeue(handler: (message: string) => Promise<QueueHandlerResult>): void {
    this.handler = handler;
    this.startWorkers();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Unacknowledged messages go back to the head of the queue for the next consumer.
    if (this.name) {
      for (const [timer, message] of this.retries) {
        clearTimeout(timer);
        this.broker.push(this.name, message);
      }
      for (const message of [...this.inFlight].reverse()) this.broker.push(this.name, message, true);
    }
    this.retries.clear();
    this.inFlight.clear();
    if (this.name && this.wake) this.broker.queue(this.name).waiters.delete(this.wake);
    this.wake?.();
  }

  private startWorkers(): void {
    if (this.started || !this.consuming || !this.handler || !this.name || this.closed) return;
    this.started = true;
    const q = this.broker.queue(this.name);
    const sleepers = new Set<() => void>();
    this.wake = () => {
      for (const wakeUp of sleepers) wakeUp();
      sleepers.clear();
    };
    q.waiters.add(this.wake);
    for (let i = 0; i < this.concurrency; i++) {
      void (async () => {
        while (!this.closed) {
          const message = q.ready.shift();
          if (!message) {
            await new Promise<void>((resolve) => sleepers.add(resolve));
            continue;
          }
          // deliver() catches handler errors; anything else must not end the loop or the process.
          await this.deliver(message).catch(() => {
            if (this.inFlight.delete(message)) this.broker.push(this.name!, message); // retried
          });
        }
      })();
    }
  }

  private async deliver(message: QueuedMessage): Promise<void> {
    const name = this.name!;
    message.attempts++;
    this.inFlight.add(message);
    let result: QueueHandlerResult;
    try {
      result = await this.handler!(message.body);
    } catch {
      result = 'transient';
    }
    if (this.closed || !this.inFlight.delete(message)) return; // released by close()
    if (result === 'ok') return;
    if (result === 'fatal' || message.attempts >= this.maxAttempts) {
      this.broker.push(poisonQueueName(name), { id: message.id, body: message.body, attempts: 0 });
      return;
    }
    const timer = setTimeout(
      () => {
        this.retries.delete(timer);
        this.broker.push(name, message);
      },
      this.retryDelayMs * 2 ** (message.attempts - 1),
    );
    this.retries.set(timer, message);
  }
}
