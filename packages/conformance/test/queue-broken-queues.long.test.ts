import { mkdtempSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileQueue, InMemoryQueue, InMemoryQueueBroker, type IQueue } from '@km/core';
import type { QueueTransport, TransportMessage } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { caseOutcome } from './case-outcome.js';
import { QUEUE_CASES } from '../src/queue/queue-cases.js';
import { runQueueCase } from '../src/queue/queue-fixture.js';
import type { QueueSuiteOptions, QueueSuiteSettings } from '../src/queue/queue-suite-options.js';

/**
 * The queue suite must fail on queues that get a lease wrong. Each broken queue below is core's
 * FileQueue (leases are file times) with one transport member replaced; the case of that rule
 * must fail, and the same case must pass on the FileQueue itself.
 */

type FileTransport = QueueTransport<TransportMessage & { path: string }>;
const folder = mkdtempSync(join(tmpdir(), 'km-broken-queues-'));

/** A FileQueue whose transport `breakIt` changes. */
function fileQueue(breakIt: (transport: FileTransport) => void = () => undefined) {
  return (settings: QueueSuiteSettings): IQueue => {
    const queue = new FileQueue({ directory: folder, pollIntervalMs: 20, durable: false, ...settings });
    breakIt((queue as unknown as { transport: FileTransport }).transport);
    return queue;
  };
}

/** Runs one case once; 'passed', 'skipped: <reason>' or 'failed: <message>'. */
async function outcome(options: QueueSuiteOptions, rule: string): Promise<string> {
  const run = QUEUE_CASES[rule];
  if (!run) throw new Error(`no case "${rule}"`);
  return caseOutcome((skip) => runQueueCase(options, run.run, { skip }));
}

const ACK = 'an acknowledged message is gone: a new consumer gets nothing after its lease would have run out (ack removes it)';
const CRASH = "a crashed consumer's message goes to another consumer once its lease runs out";
const RENEW = 'a handler running past the lease keeps its message: no one else gets it meanwhile (the lease is renewed)';
const RETRY_DELAY = 'a retry waits the delay the handler asks for (retryAfterMs)';

const BROKEN_QUEUES: Record<string, { create: QueueSuiteOptions['create']; fails: string; message: RegExp }> = {
  AckDoesNothingQueue: {
    create: fileQueue((t) => {
      t.ack = async () => undefined;
    }),
    fails: ACK,
    message: /ack did not remove it/,
  },
  NeverRecoversCrashedLeaseQueue: {
    // Claims are stamped a day ahead: a consumer that dies holding one holds it for a day.
    create: fileQueue((t) => {
      const [receive, renew] = [t.receive.bind(t), t.renew!.bind(t)];
      const aDay = async (m: { path: string }) => {
        const later = new Date(Date.now() + 86_400_000);
        await utimes(m.path, later, later);
      };
      t.receive = async (max) => {
        const messages = await receive(max);
        for (const m of messages) await aDay(m);
        return messages;
      };
      t.renew = async (m) => (await renew(m), aDay(m));
    }),
    fails: CRASH,
    message: /its lease was not recovered/,
  },
  NeverRenewsLeaseQueue: {
    create: fileQueue((t) => {
      t.renew = undefined;
    }),
    fails: RENEW,
    message: /the lease was not renewed/,
  },
  IgnoresRetryDelayQueue: {
    create: fileQueue((t) => {
      const retry = t.retry.bind(t);
      t.retry = (m) => retry(m, 0);
    }),
    fails: RETRY_DELAY,
    message: /the delay was ignored/,
  },
};

describe('describeQueue fails on broken queues', () => {
  for (const [name, { create, fails, message }] of Object.entries(BROKEN_QUEUES)) {
    it(`${name} fails "${fails}", which FileQueue passes`, async () => {
      const started = Date.now();
      const failure = await outcome({ create }, fails);
      // Fails within its own bound (a delivery timeout and two leases), never more.
      expect(Date.now() - started).toBeLessThan(10_000 + 2 * 1000 + 2000);
      expect(failure).toMatch(/^failed: /);
      expect(failure).toMatch(message);
      expect(await outcome({ create: fileQueue() }, fails)).toBe('passed');
    });
  }

  it('a crash of an InMemoryQueue is a named skip: its messages live in the process', async () => {
    const broker = new InMemoryQueueBroker();
    expect(await outcome({ create: (s) => new InMemoryQueue({ broker, ...s }) }, CRASH)).toMatch(
      /^skipped: messages are held in process memory/,
    );
  });
});
