/** A message held by an {@link InMemoryQueueBroker}. */
export interface QueuedMessage {
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
