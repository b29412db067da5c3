import type { QueueHandlerResult } from '@km/core';
import { expect } from 'vitest';
import { sleep } from '../util/async.js';
import type { QueueCase } from './queue-fixture.js';

/** The delay the retry-delay case asks for with `{ retryAfterMs }`, in ms. */
export const QUEUE_RETRY_AFTER_MS = 800;

/** Time limit of a case that waits out leases: a delivery timeout plus four leases and slack. */
const leaseBound = (timeoutMs: number, leaseMs: number) => timeoutMs + 4 * leaseMs + 10_000;

/** Every case of {@link describeQueue}, keyed by the rule it checks. */
export const QUEUE_CASES: Readonly<Record<string, QueueCase>> = {
  'one consumer receives messages in the order they were enqueued': {
    async run(t) {
      const name = t.queueName();
      const p = await t.producer(name);
      const sent = Array.from({ length: 25 }, (_, i) => `message-${i}`);
      for (const m of sent) await p.enqueue(m);
      const received: string[] = [];
      await t.consumer(name, async (m) => (received.push(m), 'ok'));
      await t.waitFor(
        '25 messages delivered',
        () => received.length >= sent.length,
        () => ({ received }),
      );
      expect(received, `sent ${JSON.stringify(sent)}`).toEqual(sent);
    },
  },

  'an acknowledged message is not delivered again': {
    async run(t) {
      const name = t.queueName();
      const received: string[] = [];
      await t.consumer(name, async (m) => (received.push(m), 'ok'));
      await (await t.producer(name)).enqueue('once');
      await t.waitFor(
        'the message delivered',
        () => received.length > 0,
        () => ({ received }),
      );
      await t.never(
        'delivered again after "ok"',
        () => received.length > 1,
        () => ({ received }),
        400,
      );
      expect(received).toEqual(['once']);
    },
  },

  'an acknowledged message is gone: a new consumer gets nothing after its lease would have run out (ack removes it)': {
    timeoutMs: leaseBound,
    async run(t) {
      const name = t.queueName();
      const first: string[] = [];
      const a = await t.consumer(name, async (m) => (first.push(m), 'ok'));
      await (await t.producer(name)).enqueue('acked');
      await t.waitFor(
        'the message delivered',
        () => first.length > 0,
        () => ({ first }),
      );
      await a.close(); // waits for the ack; a consumer holds nothing after it
      const second: string[] = [];
      await t.consumer(name, async (m) => (second.push(m), 'ok'));
      const ms = 2 * t.leaseMs + 500;
      await t.never(
        `a message acknowledged by a consumer that then closed came back to another one (lease ${t.leaseMs} ms): ack did not remove it`,
        () => second.length > 0,
        () => ({ first, second }),
        ms,
      );
    },
  },

  "a crashed consumer's message goes to another consumer once its lease runs out": {
    timeoutMs: leaseBound,
    async run(t) {
      const name = t.queueName();
      await (await t.producer(name)).enqueue('orphan');
      const first: string[] = [];
      const a = await t.consumer(name, async (m) => {
        first.push(m);
        return new Promise<QueueHandlerResult>(() => undefined); // dies holding it
      });
      await t.waitFor(
        'the message delivered to the first consumer',
        () => first.length > 0,
        () => ({ first }),
      );
      await t.crash(a);
      const second: string[] = [];
      await t.consumer(name, async (m) => (second.push(m), 'ok'));
      await t.waitFor(
        `the message of a crashed consumer never reached another one (lease ${t.leaseMs} ms): its lease was not recovered`,
        () => second.length > 0,
        () => ({ first, second }),
        t.timeoutMs + 2 * t.leaseMs,
      );
      expect(second, 'deliveries to the second consumer').toEqual(['orphan']);
    },
  },

  'a handler running past the lease keeps its message: no one else gets it meanwhile (the lease is renewed)': {
    timeoutMs: leaseBound,
    async run(t) {
      const name = t.queueName();
      const holdMs = Math.round(2.5 * t.leaseMs);
      const deliveries: string[] = [];
      let done = false;
      const handler = (consumer: string) => async (m: string) => {
        deliveries.push(`${consumer}: ${m}`);
        if (deliveries.length === 1) await sleep(holdMs);
        done = true;
        return 'ok' as const;
      };
      await t.consumer(name, handler('A'));
      await t.consumer(name, handler('B'));
      await (await t.producer(name)).enqueue('long job');
      await t.waitFor(
        'the message delivered',
        () => deliveries.length > 0,
        () => ({ deliveries }),
      );
      await t.never(
        `delivered again while its first handler ran (${holdMs} ms, lease ${t.leaseMs} ms): the lease was not renewed`,
        () => deliveries.length > 1,
        () => ({ deliveries }),
        holdMs + t.leaseMs,
      );
      expect(done, 'the first handler finished').toBe(true);
    },
  },

  'a transient failure is retried, then succeeds without reaching the poison queue': {
    async run(t) {
      const name = t.queueName();
      const attempts: string[] = [];
      const poisoned: string[] = [];
      await t.consumer(t.poisonQueueName(name), async (m) => (poisoned.push(m), 'ok'));
      await t.consumer(name, async (m) => {
        attempts.push(m);
        return attempts.length === 1 ? 'transient' : 'ok';
      });
      await (await t.producer(name)).enqueue('flaky');
      await t.waitFor(
        'a second delivery',
        () => attempts.length >= 2,
        () => ({ attempts, poisoned }),
      );
      await sleep(100);
      expect({ attempts, poisoned }).toEqual({ attempts: ['flaky', 'flaky'], poisoned: [] });
    },
  },

  'a retry waits the delay the handler asks for (retryAfterMs)': {
    async run(t) {
      const name = t.queueName();
      const times: number[] = [];
      let answered = 0;
      await t.consumer(name, async () => {
        times.push(Date.now());
        if (times.length > 1) return 'ok';
        answered = Date.now();
        return { retryAfterMs: QUEUE_RETRY_AFTER_MS };
      });
      await (await t.producer(name)).enqueue('later');
      await t.waitFor(
        'a second delivery',
        () => times.length >= 2,
        () => ({ deliveries: times.length }),
        t.timeoutMs + QUEUE_RETRY_AFTER_MS,
      );
      const waited = times[1]! - answered;
      // 25 ms of slack for timers and clocks.
      expect(
        waited,
        `the retry came ${waited} ms after { retryAfterMs: ${QUEUE_RETRY_AFTER_MS} }: the delay was ignored`,
      ).toBeGreaterThanOrEqual(QUEUE_RETRY_AFTER_MS - 25);
    },
  },

  'a handler that throws counts as a transient failure': {
    async run(t) {
      const name = t.queueName();
      let calls = 0;
      await t.consumer(name, async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
        return 'ok';
      });
      await (await t.producer(name)).enqueue('throws-once');
      await t.waitFor(
        'a second delivery',
        () => calls >= 2,
        () => ({ calls }),
      );
      await sleep(100);
      expect(calls, 'deliveries').toBe(2);
    },
  },

  'a fatal result moves the message to the poison queue at once': {
    async run(t) {
      const name = t.queueName();
      let calls = 0;
      const poisoned: string[] = [];
      await t.consumer(t.poisonQueueName(name), async (m) => (poisoned.push(m), 'ok'));
      await t.consumer(name, async () => (calls++, 'fatal'));
      await (await t.producer(name)).enqueue('bad message');
      await t.waitFor(
        'the message in the poison queue',
        () => poisoned.length > 0,
        () => ({ calls, poisoned }),
      );
      expect({ calls, poisoned }).toEqual({ calls: 1, poisoned: ['bad message'] });
    },
  },

  'a message still failing after the configured attempts goes to the poison queue': {
    async run(t) {
      const name = t.queueName();
      let calls = 0;
      const poisoned: string[] = [];
      await t.consumer(t.poisonQueueName(name), async (m) => (poisoned.push(m), 'ok'));
      await t.consumer(name, async () => (calls++, 'transient'));
      await (await t.producer(name)).enqueue('always busy');
      await t.waitFor(
        'the message in the poison queue',
        () => poisoned.length > 0,
        () => ({ calls, poisoned }),
      );
      expect({ calls, poisoned }).toEqual({ calls: t.settings.maxAttempts, poisoned: ['always busy'] });
    },
  },

  'a message survives a consumer that disconnects before acknowledging it': {
    async run(t) {
      const name = t.queueName();
      await (await t.producer(name)).enqueue('survivor');
      let firstGot = false;
      const first = await t.consumer(name, async () => {
        firstGot = true;
        return new Promise<QueueHandlerResult>(() => undefined); // never acknowledges
      });
      await t.waitFor(
        'the message delivered to the first consumer',
        () => firstGot,
        () => ({ firstGot }),
      );
      await first.close();
      const received: string[] = [];
      await t.consumer(name, async (m) => (received.push(m), 'ok'));
      await t.waitFor(
        'the message delivered to the second consumer',
        () => received.length > 0,
        () => ({ received }),
      );
      expect(received).toEqual(['survivor']);
    },
  },
};
