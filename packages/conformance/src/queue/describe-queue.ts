import type { IQueue, QueueHandlerResult } from '@km/core';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, randomName, sleep } from '../util/async.js';

/** Settings the suite asks the factory to apply. */
export interface QueueSuiteSettings {
  /** Deliveries before a message goes to the poison queue. */
  maxAttempts: number;
  /** Base delay of retries, in ms (kept small by the suite). */
  retryDelayMs: number;
}

/** How the suite gets queue clients; every client must reach the same backend. */
export interface QueueSuiteOptions {
  /** A new, unconnected client. Called several times per test (producer, consumers). */
  create: (settings: QueueSuiteSettings) => Promise<IQueue> | IQueue;
  /** Name of the queue that receives poisoned messages of `name`. @default `${name}-poison` */
  poisonQueueName?: (name: string) => string;
  /** How long to wait for deliveries, in ms. @default 10000 */
  timeoutMs?: number;
  skip?: string | false;
}

/**
 * The queue conformance suite: order for one consumer, acknowledgement, retries of transient
 * failures, fatal and exhausted messages to the poison queue, and messages that survive a
 * consumer disconnecting before acknowledging.
 *
 * ```ts
 * describeQueue('rabbitmq', { create: (s) => new RabbitMqQueue({ url, ...s }) });
 * ```
 */
export function describeQueue(name: string, options: QueueSuiteOptions): void {
  describe(`IQueue conformance: ${name}`, () => {
    if (options.skip) {
      it.skip(`skipped: ${options.skip}`, () => undefined);
      return;
    }
    const timeout = options.timeoutMs ?? 10_000;
    const poison = options.poisonQueueName ?? ((n: string) => `${n}-poison`);
    const settings: QueueSuiteSettings = { maxAttempts: 3, retryDelayMs: 20 };
    const open: IQueue[] = [];
    afterEach(async () => {
      for (const q of open.splice(0)) await q.close().catch(() => undefined);
    });
    const client = async () => {
      const q = await options.create(settings);
      open.push(q);
      return q;
    };
    const producer = async (queueName: string) => {
      const q = await client();
      await q.connect(queueName, { dequeue: false });
      return q;
    };
    const consumer = async (queueName: string, handler: (message: string) => Promise<QueueHandlerResult>) => {
      const q = await client();
      q.onDequeue(handler);
      await q.connect(queueName, { dequeue: true });
      return q;
    };
    const wait = (fn: () => void) => eventually(fn, timeout, 20);

    it('one consumer receives messages in the order they were enqueued', async () => {
      const queueName = randomName('kmq');
      const p = await producer(queueName);
      const sent = Array.from({ length: 25 }, (_, i) => `message-${i}`);
      for (const m of sent) await p.enqueue(m);
      const received: string[] = [];
      await consumer(queueName, async (m) => {
        received.push(m);
        return 'ok';
      });
      await wait(() => expect(received).toEqual(sent));
    });

    it('an acknowledged message is not delivered again', async () => {
      const queueName = randomName('kmq');
      const received: string[] = [];
      await consumer(queueName, async (m) => {
        received.push(m);
        return 'ok';
      });
      const p = await producer(queueName);
      await p.enqueue('once');
      await wait(() => expect(received).toEqual(['once']));
      await sleep(Math.min(500, settings.retryDelayMs * 20));
      expect(received).toEqual(['once']);
    });

    it('a transient failure is retried, then succeeds without reaching the poison queue', async () => {
      const queueName = randomName('kmq');
      const attempts: string[] = [];
      const poisoned: string[] = [];
      await consumer(poison(queueName), async (m) => (poisoned.push(m), 'ok'));
      await consumer(queueName, async (m) => {
        attempts.push(m);
        return attempts.length === 1 ? 'transient' : 'ok';
      });
      const p = await producer(queueName);
      await p.enqueue('flaky');
      await wait(() => expect(attempts).toEqual(['flaky', 'flaky']));
      await sleep(100);
      expect(poisoned).toEqual([]);
    });

    it('a handler that throws counts as a transient failure', async () => {
      const queueName = randomName('kmq');
      let calls = 0;
      await consumer(queueName, async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
        return 'ok';
      });
      const p = await producer(queueName);
      await p.enqueue('throws-once');
      await wait(() => expect(calls).toBe(2));
    });

    it('a fatal result moves the message to the poison queue at once', async () => {
      const queueName = randomName('kmq');
      let calls = 0;
      const poisoned: string[] = [];
      await consumer(poison(queueName), async (m) => (poisoned.push(m), 'ok'));
      await consumer(queueName, async () => (calls++, 'fatal'));
      const p = await producer(queueName);
      await p.enqueue('bad message');
      await wait(() => expect(poisoned).toEqual(['bad message']));
      expect(calls).toBe(1);
    });

    it('a message still failing after the configured attempts goes to the poison queue', async () => {
      const queueName = randomName('kmq');
      let calls = 0;
      const poisoned: string[] = [];
      await consumer(poison(queueName), async (m) => (poisoned.push(m), 'ok'));
      await consumer(queueName, async () => (calls++, 'transient'));
      const p = await producer(queueName);
      await p.enqueue('always busy');
      await wait(() => expect(poisoned).toEqual(['always busy']));
      expect(calls).toBe(settings.maxAttempts);
    });

    it('a message survives a consumer that disconnects before acknowledging it', async () => {
      const queueName = randomName('kmq');
      const p = await producer(queueName);
      await p.enqueue('survivor');
      let firstGot = false;
      const first = await consumer(queueName, async () => {
        firstGot = true;
        return new Promise<QueueHandlerResult>(() => undefined); // never acknowledges
      });
      await wait(() => expect(firstGot).toBe(true));
      await first.close();
      const received: string[] = [];
      await consumer(queueName, async (m) => (received.push(m), 'ok'));
      await wait(() => expect(received).toEqual(['survivor']));
    });
  });
}
