import { randomUUID } from 'node:crypto';
import { eventually } from '@km/conformance';
import type { QueueHandlerResult } from '@km/core';
import { RabbitMqQueue } from '@km/queue-rabbitmq';
import amqp from 'amqplib';
import { afterAll, describe, expect, it } from 'vitest';
import { startPrivateRabbitMqNode } from '../src/rabbitmq-node.js';

// A broker restart, as opposed to a cut connection: the node stops (closing every connection
// from its side), stays down a while, and starts again on its data. The broker is a node of
// this suite's own, so the suites sharing the local broker are not disturbed.
const node = await startPrivateRabbitMqNode();
const unavailable = typeof node === 'string' ? node : undefined;
if (unavailable) console.log(`[km] skipped RabbitMQ broker restart: ${unavailable}`);
afterAll(async () => {
  if (typeof node !== 'string') await node.dispose();
});

describe.skipIf(unavailable)('RabbitMqQueue through a broker restart', () => {
  it('keeps queued messages, redelivers the one in progress, never redelivers acknowledged ones, and publishes what was sent while the broker was down', async () => {
    if (typeof node === 'string') return;
    const queue = `km-restart-${randomUUID().slice(0, 8)}`;
    const received: string[] = [];
    let release: ((result: QueueHandlerResult) => void) | undefined;
    const consumer = new RabbitMqQueue({ url: node.url, reconnectDelayMs: 100, concurrency: 1 });
    consumer.onDequeue(async (message) => {
      received.push(message);
      if (message === 'held' && !release) return new Promise<QueueHandlerResult>((resolve) => (release = resolve));
      return 'ok';
    });
    const producer = new RabbitMqQueue({ url: node.url, reconnectDelayMs: 100, publishTimeoutMs: 60_000 });
    try {
      await consumer.connect(queue, { dequeue: true });
      await producer.connect(queue, { dequeue: false });
      await producer.enqueue('acked');
      await eventually(() => expect(received).toEqual(['acked']), 5000);
      await producer.enqueue('held');
      await eventually(() => expect(received).toEqual(['acked', 'held']), 5000);
      // Prefetch 1 and a handler still running: this one waits in the queue, on the broker's disk.
      await producer.enqueue('queued before the restart');

      await node.halt();
      const sentWhileDown = producer.enqueue('sent while the broker was down'); // waits for a broker
      release!('ok'); // its channel died with the broker: this result cannot be acknowledged
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(received).toEqual(['acked', 'held']);
      await node.start();
      await sentWhileDown;

      const expected = ['acked', 'held', 'held', 'queued before the restart', 'sent while the broker was down'];
      await eventually(() => expect([...received].sort()).toEqual(expected), 30_000);
      // Settled: nothing is left in the queue, nothing more arrives.
      const connection = await amqp.connect(node.url);
      try {
        const channel = await connection.createChannel();
        await eventually(async () => expect((await channel.checkQueue(queue)).messageCount).toBe(0), 10_000);
      } finally {
        await connection.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect([...received].sort()).toEqual(expected);
    } finally {
      await producer.close();
      await consumer.close();
    }
  }, 120_000);
});
