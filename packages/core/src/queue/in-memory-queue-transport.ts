import { randomUUID } from 'node:crypto';
import type { InMemoryQueueBroker, QueuedMessage } from './in-memory-queue-broker.js';
import { poisonQueueName } from './poison-queue-name.js';
import { checkLocalQueueName } from './queue-name.js';
import type { QueueTransport, TransportMessage, TransportOpenOptions } from './queue-transport.js';

/** A message an {@link InMemoryQueueTransport} handed out: the broker's own record, whose `attempts` it counts. */
export interface InMemoryMessage extends TransportMessage {
  readonly stored: QueuedMessage;
}

/** The transport of `InMemoryQueue`: queues in an {@link InMemoryQueueBroker}, retries on timers. */
export class InMemoryQueueTransport implements QueueTransport<InMemoryMessage> {
  readonly names = { connector: 'in-memory-queue', className: 'InMemoryQueue', label: 'in-memory queue' };
  readonly capabilities = { retryJitter: 'none' } as const;
  readonly defaults = { maxAttempts: 3, retryDelayMs: 100 };
  private name = '';
  private wake: (() => void) | undefined;
  /** Messages waiting for their retry delay, returned to the queue at once if this client closes first. */
  private readonly retries = new Map<NodeJS.Timeout, QueuedMessage>();

  constructor(private readonly broker: InMemoryQueueBroker) {}

  async open(name: string, { consume, wake }: TransportOpenOptions): Promise<void> {
    this.name = checkLocalQueueName(name, this.names.connector);
    this.broker.queue(name);
    if (consume) this.broker.queue(name).waiters.add((this.wake = wake));
  }

  async publish(body: string): Promise<void> {
    this.broker.push(this.name, { id: randomUUID(), body, attempts: 0 });
  }

  async receive(max: number): Promise<InMemoryMessage[]> {
    return this.broker
      .queue(this.name)
      .ready.splice(0, max)
      .map((stored) => ({ body: stored.body, attempt: ++stored.attempts, stored }));
  }

  async ack(): Promise<void> {}

  async retry({ stored }: InMemoryMessage, delayMs: number): Promise<void> {
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      this.broker.push(this.name, stored);
    }, delayMs);
    this.retries.set(timer, stored);
  }

  async poison({ stored }: InMemoryMessage): Promise<void> {
    this.broker.push(poisonQueueName(this.name), { id: stored.id, body: stored.body, attempts: 0 });
  }

  async release({ stored }: InMemoryMessage): Promise<void> {
    this.broker.push(this.name, stored, true);
  }

  async close(): Promise<void> {
    for (const [timer, stored] of this.retries) {
      clearTimeout(timer);
      this.broker.push(this.name, stored);
    }
    this.retries.clear();
    if (this.wake) this.broker.queue(this.name).waiters.delete(this.wake);
  }
}
