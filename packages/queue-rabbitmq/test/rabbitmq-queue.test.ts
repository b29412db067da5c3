import { randomUUID } from 'node:crypto';
import { eventually, startTcpProxy, type TcpProxy } from '@km/conformance';
import { isKmError, type QueueHandlerResult } from '@km/core';
import amqp, { type ChannelModel } from 'amqplib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPTS_HEADER, RabbitMqQueue, RabbitMqTransport, deliveryAttempt, retryDelay, translateAmqpError } from '../src/index.js';
import { RABBITMQ_URL, brokerUnavailable } from './broker.js';

describe('retry arithmetic', () => {
  it('delays double per attempt up to the maximum; each distinct delay is a tier', () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => retryDelay(a, 1000, 10_000))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('retries wait without jitter (each distinct delay is a delay queue, so delays stay on doubling tiers)', () => {
    expect(new RabbitMqTransport({}).capabilities.retryJitter).toBe('none');
  });

  it('attempts count earlier copies, quorum redeliveries, or a classic redelivery flag', () => {
    expect(deliveryAttempt(undefined, false)).toBe(1);
    expect(deliveryAttempt({ [ATTEMPTS_HEADER]: 2 }, false)).toBe(3);
    expect(deliveryAttempt({ [ATTEMPTS_HEADER]: 2, 'x-delivery-count': 2 }, true)).toBe(5);
    expect(deliveryAttempt({}, true)).toBe(2);
  });
});

describe('translateAmqpError', () => {
  const socketError = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('a refused or reset connection is transient, even when its port holds 403 or 406', () => {
    for (const port of [44039, 40612, 5672]) {
      const error = translateAmqpError(socketError(`connect ECONNREFUSED 127.0.0.1:${port}`, 'ECONNREFUSED'), 'q');
      expect(error.code, String(port)).toBe('transient');
      expect(error.transient).toBe(true);
    }
    expect(translateAmqpError(socketError('read ECONNRESET', 'ECONNRESET'), 'q').code).toBe('transient');
  });

  it("the broker's refusals keep their meaning: credentials, other arguments, a missing queue", () => {
    const closed = (message: string, code: number) => Object.assign(new Error(message), { code });
    expect(
      translateAmqpError(new Error('Handshake terminated by server: 403 (ACCESS-REFUSED) with message "ACCESS_REFUSED"'), 'q').code,
    ).toBe('unauthorized');
    expect(translateAmqpError(closed('Channel closed by server: 406 (PRECONDITION-FAILED)', 406), 'q').code).toBe('upstream_error');
    expect(
      translateAmqpError(closed('Channel closed by server: 404 (NOT-FOUND) with message "NOT_FOUND - no queue \'q\'"', 404), 'q').code,
    ).toBe('upstream_error');
  });
});

const unavailable = await brokerUnavailable();
if (unavailable) console.log(`[km] skipped RabbitMQ queue tests: ${unavailable}`);

describe.skipIf(unavailable)('RabbitMqQueue on a real broker', () => {
  let admin: ChannelModel;
  const open: RabbitMqQueue[] = [];
  const declared: string[] = [];
  const fresh = (options: ConstructorParameters<typeof RabbitMqQueue>[0] = {}) => {
    const q = new RabbitMqQueue({ url: RABBITMQ_URL, retryDelayMs: 50, maxAttempts: 3, ...options });
    open.push(q);
    return q;
  };
  const name = () => {
    const n = `km-test-${randomUUID().slice(0, 8)}`;
    declared.push(n, `${n}-poison`, `${n}-poison-poison`, ...[50, 100, 200].map((d) => `${n}-delay-${d}ms`));
    return n;
  };

  beforeAll(async () => {
    admin = await amqp.connect(RABBITMQ_URL);
  });
  afterEach(async () => {
    for (const q of open.splice(0)) await q.close();
  });
  afterAll(async () => {
    const channel = await admin.createChannel();
    for (const q of declared) await channel.deleteQueue(q).catch(() => undefined);
    await admin.close();
  });

  it('declares durable quorum queues that dead-letter to {queue}-poison', async () => {
    const queue = name();
    await fresh().connect(queue, { dequeue: false });
    const channel = await admin.createChannel();
    channel.on('error', () => undefined); // the refused declaration below closes this channel
    // A passive check succeeds only when the queue exists; a declaration with other arguments is refused (406).
    expect((await channel.checkQueue(queue)).queue).toBe(queue);
    expect((await channel.checkQueue(`${queue}-poison`)).queue).toBe(`${queue}-poison`);
    const args = (await channel.checkQueue(queue)) && {
      'x-queue-type': 'quorum',
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': `${queue}-poison`,
    };
    // Redeclaring with the same arguments is accepted; with another type it is refused.
    await channel.assertQueue(queue, {
      durable: true,
      arguments: { ...args, 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' },
    });
    await expect(channel.assertQueue(queue, { durable: true, arguments: { ...args, 'x-queue-type': 'classic' } })).rejects.toThrow(
      /PRECONDITION_FAILED/,
    );
  });

  it('a transient failure waits in the delay queue of its tier, then comes back', async () => {
    const queue = name();
    const seen: number[] = [];
    const consumer = fresh({ retryDelayMs: 100 });
    consumer.onDequeue(async () => (seen.push(Date.now()), seen.length === 1 ? 'transient' : 'ok'));
    await consumer.connect(queue, { dequeue: true });
    const producer = fresh({ retryDelayMs: 100 });
    await producer.connect(queue, { dequeue: false });
    await producer.enqueue('retry me');
    await eventually(() => expect(seen).toHaveLength(2), 5000);
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(90);
    const channel = await admin.createChannel();
    expect((await channel.checkQueue(`${queue}-delay-100ms`)).messageCount).toBe(0);
  });

  it('a message acknowledged just before close stays acknowledged (close waits for the broker to have the ack)', async () => {
    // amqplib sends an ack without waiting; a connection closed right after it used to reach the
    // broker first, which dropped the ack and delivered the message again, every time.
    for (let round = 1; round <= 3; round++) {
      const queue = name();
      const producer = fresh();
      await producer.connect(queue, { dequeue: false });
      await producer.enqueue(`acked ${round}`);
      const transport = new RabbitMqTransport({ url: RABBITMQ_URL });
      await transport.open(queue, { consume: true, prefetch: 1, wake: () => undefined });
      let delivery: Awaited<ReturnType<RabbitMqTransport['receive']>>[number] | undefined;
      await eventually(async () => {
        delivery ??= (await transport.receive(1))[0];
        expect(delivery?.body).toBe(`acked ${round}`);
      }, 5000);
      await transport.ack(delivery!);
      await transport.close();
      const again: string[] = [];
      const next = fresh();
      next.onDequeue(async (m) => (again.push(m), 'ok'));
      await next.connect(queue, { dequeue: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(again, `round ${round}: delivered again after ack and close`).toEqual([]);
    }
  });

  it('a poisoned message carries the dead-letter record of why it was rejected', async () => {
    const queue = name();
    const consumer = fresh();
    consumer.onDequeue(async () => 'fatal');
    await consumer.connect(queue, { dequeue: true });
    const producer = fresh();
    await producer.connect(queue, { dequeue: false });
    await producer.enqueue('bad');
    const channel = await admin.createChannel();
    let got: amqp.GetMessage | false = false;
    await eventually(async () => {
      got = await channel.get(`${queue}-poison`, { noAck: true });
      expect(got).not.toBe(false);
    }, 5000);
    const message = got as unknown as amqp.GetMessage;
    expect(message.content.toString()).toBe('bad');
    const deaths = message.properties.headers?.['x-death'] as Array<{ queue: string; reason: string }>;
    expect(deaths[0]).toMatchObject({ queue, reason: 'rejected' });
  });

  describe('when the connection is cut', () => {
    let proxy: TcpProxy;
    beforeAll(async () => {
      const url = new URL(RABBITMQ_URL);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5672) });
    });
    afterAll(() => proxy.close());
    const viaProxy = () => {
      const url = new URL(RABBITMQ_URL);
      url.host = `127.0.0.1:${proxy.port}`;
      return url.toString();
    };

    it('reconnects by itself: acknowledged messages are not delivered again, the one in progress is, new ones flow', async () => {
      const queue = name();
      const received: string[] = [];
      let release: ((r: QueueHandlerResult) => void) | undefined;
      const consumer = fresh({ url: viaProxy(), reconnectDelayMs: 50 });
      consumer.onDequeue(async (m) => {
        received.push(m);
        if (m === 'held' && !release) return new Promise<QueueHandlerResult>((resolve) => (release = resolve));
        return 'ok';
      });
      await consumer.connect(queue, { dequeue: true });
      const producer = fresh({ url: viaProxy(), reconnectDelayMs: 50 });
      await producer.connect(queue, { dequeue: false });
      await producer.enqueue('acked');
      await eventually(() => expect(received).toEqual(['acked']), 5000);
      await producer.enqueue('held');
      await eventually(() => expect(received).toEqual(['acked', 'held']), 5000);

      expect(proxy.cut()).toBeGreaterThan(0);
      release!('ok'); // its channel is gone: this result cannot be acknowledged
      await producer.enqueue('after the cut'); // waits for the new connection
      await eventually(() => expect(received.slice(2).sort()).toEqual(['after the cut', 'held']), 10_000);
      expect(received.filter((m) => m === 'acked')).toHaveLength(1);
    });

    it('enqueue fails with a typed transient error when no broker comes back in time', async () => {
      const queue = name();
      const producer = fresh({ url: viaProxy(), publishTimeoutMs: 300, reconnectDelayMs: 50 });
      await producer.connect(queue, { dequeue: false });
      await proxy.close();
      await expect(producer.enqueue('lost?')).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient'));
      const url = new URL(RABBITMQ_URL);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5672) });
    });
  });

  it('connecting to a queue declared elsewhere with other arguments is a typed error, not a crash', async () => {
    const queue = name();
    const channel = await admin.createChannel();
    await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'classic' } });
    await expect(fresh().connect(queue, { dequeue: false })).rejects.toSatisfy((e: unknown) => isKmError(e, 'upstream_error'));
  });

  it('connect reports refused credentials and unreachable brokers as typed errors', async () => {
    const url = new URL(RABBITMQ_URL);
    url.password = 'wrong-password';
    await expect(fresh({ url: url.toString() }).connect(name(), { dequeue: false })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'unauthorized'),
    );
    await expect(
      fresh({ url: 'amqp://guest:guest@127.0.0.1:1', connectTimeoutMs: 1000 }).connect(name(), { dequeue: false }),
    ).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient'));
  });
});
