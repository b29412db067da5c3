import type { IQueue } from '@km/core';

/** Settings the suite asks the factory to apply (spread them into the connector's options). */
export interface QueueSuiteSettings {
  /** Deliveries before a message goes to the poison queue. */
  maxAttempts: number;
  /** Base delay of retries, in ms (kept small by the suite). */
  retryDelayMs: number;
  /** How long a received message stays held without a renewal, in ms, on backends with leases (visibility timeouts). */
  visibilityTimeoutMs: number;
}

/** How the suite gets queue clients; every client must reach the same backend. */
export interface QueueSuiteOptions {
  /** A new, unconnected client. Called several times per test (producer, consumers). */
  create: (settings: QueueSuiteSettings) => Promise<IQueue> | IQueue;
  /** Name of the queue that receives poisoned messages of `name`. @default `${name}-poison` */
  poisonQueueName?: (name: string) => string;
  /** How long to wait for deliveries, in ms. @default 10000 */
  timeoutMs?: number;
  /**
   * The lease the backend really applies when asked for `settings.visibilityTimeoutMs`, in ms
   * (Azure Storage queues hold a message at least 3 s). @default settings.visibilityTimeoutMs
   */
  leaseMs?: number;
  /**
   * Ends a client as if its process died: it stops receiving and renewing, and settles or
   * releases nothing it holds (a broker connection just drops). Resolves with a reason to skip
   * the crash case when the backend has nothing to recover (messages held in process memory).
   * @default {@link crashTransportQueue}, for queues on core's `TransportQueue`
   */
  crash?: (queue: IQueue) => Promise<string | undefined>;
  /**
   * Times a failing case is run again before it counts (vitest's `retry`). Only for a backend
   * whose delivery is at-least-once under load (a broker connection lost under a busy machine
   * hands an acknowledged message out again); say why where you set it. @default 0
   */
  retry?: number;
  skip?: string | false;
}
