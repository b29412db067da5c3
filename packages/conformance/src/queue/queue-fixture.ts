import type { IQueue, QueueDelivery, QueueHandlerResult } from '@km/core';
import { randomName, sleep } from '../util/async.js';
import { crashTransportQueue } from './crash-transport-queue.js';
import type { QueueSuiteOptions, QueueSuiteSettings } from './queue-suite-options.js';

/** The settings every case runs with: small delays, a lease of one second. */
export const QUEUE_SUITE_SETTINGS: QueueSuiteSettings = Object.freeze({ maxAttempts: 3, retryDelayMs: 20, visibilityTimeoutMs: 1000 });

type Handler = (message: string, delivery?: QueueDelivery) => Promise<QueueHandlerResult>;

/** What one queue case gets: clients of the backend under test, closed after the case. */
export interface QueueCaseContext {
  readonly settings: QueueSuiteSettings;
  /** The lease the backend applies, in ms. */
  readonly leaseMs: number;
  /** How long deliveries are waited for, in ms. */
  readonly timeoutMs: number;
  /** A queue name no other case uses. */
  queueName(): string;
  poisonQueueName(name: string): string;
  /** A client connected to `name` that only enqueues. */
  producer(name: string): Promise<IQueue>;
  /** A client consuming `name` with `handler`. */
  consumer(name: string, handler: Handler): Promise<IQueue>;
  /** Ends a client as a crashed process would (see `QueueSuiteOptions.crash`), or skips the case. */
  crash(queue: IQueue): Promise<void>;
  skip(reason: string): never;
  /**
   * Polls `condition` every 10 ms until it holds; throws `what` (with `state()`) once
   * `timeoutMs` (default: the suite's) has passed. Wait for a count, then assert once: a wrong
   * answer then fails as soon as it is there, not after the whole timeout.
   */
  waitFor(what: string, condition: () => boolean, state: () => unknown, timeoutMs?: number): Promise<void>;
  /** Polls `condition` for `ms`; throws `what` (with `state()`) as soon as it holds. */
  never(what: string, condition: () => boolean, state: () => unknown, ms: number): Promise<void>;
}

/** One case: a readable rule name maps to its check and, for slow ones, its own time limit. */
export interface QueueCase {
  run(t: QueueCaseContext): Promise<void>;
  /** Time limit of the test in ms, given the suite's timeout and lease. */
  timeoutMs?(timeoutMs: number, leaseMs: number): number;
}

/** How a case is run: how a skip is reported. */
export interface QueueCaseSettings {
  skip(reason: string): never;
}

/** Runs one case with fresh clients, closing every client it made afterwards. */
export async function runQueueCase(options: QueueSuiteOptions, run: QueueCase['run'], settings: QueueCaseSettings): Promise<void> {
  const suiteSettings = { ...QUEUE_SUITE_SETTINGS };
  const open: IQueue[] = [];
  const client = async () => {
    const q = await options.create(suiteSettings);
    open.push(q);
    return q;
  };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const poll = async (deadline: number, stop: () => boolean): Promise<boolean> => {
    for (;;) {
      if (stop()) return true;
      if (Date.now() >= deadline) return false;
      await sleep(10);
    }
  };
  const show = (state: () => unknown) => JSON.stringify(state());
  const context: QueueCaseContext = {
    settings: suiteSettings,
    leaseMs: options.leaseMs ?? suiteSettings.visibilityTimeoutMs,
    timeoutMs,
    queueName: () => randomName('kmq'),
    poisonQueueName: options.poisonQueueName ?? ((n) => `${n}-poison`),
    producer: async (name) => {
      const q = await client();
      await q.connect(name, { dequeue: false });
      return q;
    },
    consumer: async (name, handler) => {
      const q = await client();
      q.onDequeue(handler);
      await q.connect(name, { dequeue: true });
      return q;
    },
    crash: async (queue) => {
      const reason = await (options.crash ?? crashTransportQueue)(queue);
      if (reason) settings.skip(reason);
    },
    skip: settings.skip,
    waitFor: async (what, condition, state, ms = timeoutMs) => {
      if (!(await poll(Date.now() + ms, condition))) throw new Error(`${what}: not within ${ms} ms; ${show(state)}`);
    },
    never: async (what, condition, state, ms) => {
      if (await poll(Date.now() + ms, condition)) throw new Error(`${what}; ${show(state)}`);
    },
  };
  try {
    await run(context);
  } finally {
    for (const q of open.splice(0)) await q.close().catch(() => undefined);
  }
}
