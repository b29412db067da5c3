import { randomUUID } from 'node:crypto';
import type { QueueHandlerResult } from '@km/core';
import amqp from 'amqplib';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { RabbitMqQueue } from '../src/index.js';
import { RABBITMQ_URL, brokerUnavailable } from './broker.js';

const unavailable = await brokerUnavailable();
if (unavailable) console.log(`[km] skipped RabbitMQ handler-error tests: ${unavailable}`);

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);

/** Handlers that fail their first two deliveries in the two ways a careless handler can. */
const failures: Record<string, (attempt: number) => Promise<QueueHandlerResult>> = {
  'throws synchronously': (attempt) => {
    if (attempt <= 2) throw new Error(`sync failure ${attempt}`);
    return Promise.resolve('ok');
  },
  'returns a rejected promise': (attempt) => (attempt <= 2 ? Promise.reject(new Error(`async failure ${attempt}`)) : Promise.resolve('ok')),
};

describe.skipIf(unavailable)('RabbitMqQueue: a handler error', () => {
  const open: RabbitMqQueue[] = [];
  const declared: string[] = [];
  process.on('unhandledRejection', onRejection);
  afterEach(async () => {
    for (const q of open.splice(0)) await q.close();
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    const admin = await amqp.connect(RABBITMQ_URL);
    const channel = await admin.createChannel();
    for (const q of declared) await channel.deleteQueue(q).catch(() => undefined);
    await admin.close();
  });

  it.each(Object.keys(failures))('that %s is caught and the message retried, never an unhandled rejection', async (how) => {
    const name = `km-test-${randomUUID().slice(0, 8)}`;
    declared.push(name, `${name}-poison`, `${name}-delay-20ms`, `${name}-delay-40ms`);
    const queue = new RabbitMqQueue({ url: RABBITMQ_URL, retryDelayMs: 20, maxAttempts: 5 });
    open.push(queue);
    const seen: string[] = [];
    queue.onDequeue((message) => {
      seen.push(message);
      return failures[how]!(seen.length);
    });
    await queue.connect(name, { dequeue: true });
    await queue.enqueue('the message');
    await vi.waitFor(() => expect(seen).toHaveLength(3), { timeout: 15_000, interval: 10 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['the message', 'the message', 'the message']);
    expect(rejections).toEqual([]);
  });
});
