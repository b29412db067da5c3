import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  InvalidInputError,
  KmError,
  checkQueueConnect,
  silentLogger,
  type IQueue,
  type Logger,
  type QueueConnectOptions,
  type QueueHandlerResult,
} from '@km/core';
import { withTimeout } from '@km/core/connector';
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import type { RabbitMqQueueOptions } from './rabbitmq-config.js';
import { translateAmqpError } from './rabbitmq-errors.js';
import { ATTEMPTS_HEADER, QueueNames, deliveryAttempt, queueArguments, retryDelay } from './rabbitmq-topology.js';

const CONNECTOR = 'rabbitmq';
const MAX_RECONNECT_DELAY_MS = 10_000;

/** One live connection with its channel; replaced as a whole after any failure. */
interface Session {
  connection: ChannelModel;
  channel: ConfirmChannel;
  /** Delay queues declared on this session. */
  delayQueues: Set<string>;
  /** Set when the connection or channel is gone: deliveries of this session can no longer be settled. */
  dead: boolean;
  consumerTag?: string;
}

/**
 * A km pipeline queue on RabbitMQ, through amqplib.
 *
 * - One durable queue per step (quorum by default), persistent messages, publisher confirms:
 *   `enqueue` resolves once the broker has the message.
 * - Manual acknowledgements with a prefetch of `concurrency`: a message is acknowledged only
 *   after its handler returned, so a consumer that dies hands its messages back.
 * - A transient failure is re-published to the delay queue of its tier
 *   (`{queue}-delay-{ms}ms`, one TTL per queue) which dead-letters it back when the delay is
 *   over, then acknowledged. A fatal result, or the last attempt, is rejected and the
 *   dead-letter exchange moves it to `{queue}-poison`.
 * - The connection is re-opened after a broker restart or a dropped connection, with backoff;
 *   work acknowledged before the drop is never redelivered, work in progress is redelivered
 *   (handlers are idempotent). `enqueue` waits for the connection up to `publishTimeoutMs`.
 *
 * ```ts
 * const queue = new RabbitMqQueue({ url: 'amqp://guest:guest@127.0.0.1:5672', concurrency: 4 });
 * queue.onDequeue(async (message) => (await handle(message), 'ok'));
 * await queue.connect('extract', { dequeue: true });
 * ```
 */
export class RabbitMqQueue implements IQueue {
  private readonly url: string;
  private readonly type: 'quorum' | 'classic';
  private readonly prefix: string;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly concurrency: number;
  private readonly connectTimeoutMs: number;
  private readonly reconnectDelayMs: number;
  private readonly publishTimeoutMs: number;
  private readonly logger: Logger;
  private name: string | undefined;
  private consuming = false;
  private handler: ((message: string) => Promise<QueueHandlerResult>) | undefined;
  private session: Session | undefined;
  /** Resolves with the next session; replaced when the connection is lost. */
  private opening: Promise<Session> | undefined;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(options: RabbitMqQueueOptions = {}) {
    this.url = withHeartbeat(options.url ?? 'amqp://guest:guest@127.0.0.1:5672', options.heartbeatSeconds ?? 15);
    this.type = options.queueType ?? 'quorum';
    this.prefix = options.queuePrefix ?? '';
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.retryDelayMs = Math.max(1, options.retryDelayMs ?? 1000);
    this.maxRetryDelayMs = Math.max(this.retryDelayMs, options.maxRetryDelayMs ?? 60_000);
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.reconnectDelayMs = Math.max(10, options.reconnectDelayMs ?? 250);
    this.publishTimeoutMs = options.publishTimeoutMs ?? 30_000;
    this.logger = options.logger ?? silentLogger;
  }

  /** The broker-side name of the queue this client is connected to. */
  get queueName(): string | undefined {
    return this.name;
  }

  onDequeue(handler: (message: string) => Promise<QueueHandlerResult>): void {
    this.handler = handler;
  }

  /** Opens the connection, declares the queue, its poison queue, and starts consuming when asked. Throws a typed error if the broker cannot be reached. */
  async connect(name: string, options: QueueConnectOptions): Promise<void> {
    checkQueueConnect({ closed: this.closed, connectedTo: this.name, hasHandler: Boolean(this.handler) }, options, {
      connector: CONNECTOR,
      className: 'RabbitMqQueue',
    });
    this.name = checkQueueName(`${this.prefix}${name}`);
    this.consuming = options.dequeue;
    try {
      await this.open();
    } catch (error) {
      this.name = undefined; // connect may be tried again
      throw error;
    }
  }

  async enqueue(message: string): Promise<void> {
    if (typeof message !== 'string')
      throw new InvalidInputError('invalid_argument', 'a queue message must be a string', { connector: CONNECTOR });
    await this.publish(this.queue(), message, 0);
  }

  /** Stops consuming and closes the connection; messages not acknowledged go back to the queue. Handlers still running are not interrupted; their results are ignored. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const session = this.session ?? (await this.opening?.catch(() => undefined));
    this.session = undefined;
    if (!session) return;
    if (session.consumerTag) await session.channel.cancel(session.consumerTag).catch(() => undefined);
    await session.connection.close().catch(() => undefined);
  }

  private queue(): string {
    if (this.name === undefined) throw new KmError('invalid_argument', 'call connect() before using the queue', { connector: CONNECTOR });
    return this.name;
  }

  /** The current session, opening one if needed (once for all callers). */
  private open(): Promise<Session> {
    if (this.session) return Promise.resolve(this.session);
    this.opening ??= this.createSession().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async createSession(): Promise<Session> {
    const queue = this.queue();
    let connection: ChannelModel;
    try {
      connection = await amqp.connect(this.url, { timeout: this.connectTimeoutMs });
    } catch (error) {
      throw translateAmqpError(error, queue);
    }
    // An 'error' event without a listener would crash the process.
    connection.on('error', (error: Error) => this.logger.warn('RabbitMQ connection error', { queue, error: error.message }));
    try {
      const channel = await connection.createConfirmChannel();
      // A refused declaration (406) closes the channel with an 'error' event: listen before declaring.
      channel.on('error', (error: Error) =>
        this.logger.warn('RabbitMQ channel error', { queue, error: translateAmqpError(error, queue).message }),
      );
      const args = queueArguments(this.type);
      await channel.assertQueue(QueueNames.poison(queue), args.queue(QueueNames.poison(queue)));
      await channel.assertQueue(queue, args.queue(queue));
      const session: Session = { connection, channel, delayQueues: new Set(), dead: false };
      connection.on('close', () => this.lost(session, 'connection closed'));
      channel.on('close', () => this.lost(session, 'channel closed'));
      connection.on('blocked', (reason: string) => this.logger.warn('RabbitMQ blocked publishing', { queue, reason }));
      if (this.consuming) {
        await channel.prefetch(this.concurrency);
        const { consumerTag } = await channel.consume(queue, (message) => this.deliver(session, message), { noAck: false });
        session.consumerTag = consumerTag;
      }
      if (this.closed) {
        await connection.close().catch(() => undefined);
        throw new KmError('invalid_argument', 'the queue was closed while connecting', { connector: CONNECTOR });
      }
      if (session.dead)
        throw new KmError('transient', 'RabbitMQ: the connection closed while opening', { connector: CONNECTOR, transient: true });
      this.session = session;
      return session;
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw translateAmqpError(error, queue);
    }
  }

  /** The session died (broker restart, network cut, channel error): reconnect with backoff. */
  private lost(session: Session, why: string): void {
    if (session.dead) return;
    session.dead = true;
    if (this.session !== session) return;
    this.session = undefined;
    session.connection.close().catch(() => undefined);
    if (this.closed) return;
    this.logger.warn('RabbitMQ connection lost, reconnecting', { queue: this.name, why });
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    let delay = this.reconnectDelayMs;
    while (!this.closed && !this.session) {
      try {
        await this.open();
        this.logger.info('RabbitMQ reconnected', { queue: this.name });
        return;
      } catch (error) {
        this.logger.warn('RabbitMQ reconnection failed', { queue: this.name, error: (error as Error).message, retryInMs: delay });
        await sleep(delay);
        delay = Math.min(MAX_RECONNECT_DELAY_MS, delay * 2);
      }
    }
  }

  /** Publishes with a confirm, waiting for a connection and retrying on a lost channel until `publishTimeoutMs`. */
  private async publish(target: string, message: string, failedAttempts: number, delayMs?: number): Promise<void> {
    const deadline = Date.now() + this.publishTimeoutMs;
    let lastError: unknown;
    while (!this.closed && Date.now() < deadline) {
      let session: Session;
      try {
        session = await withTimeout(
          this.open(),
          deadline - Date.now(),
          () => new KmError('transient', 'RabbitMQ: no connection in time', { connector: CONNECTOR, transient: true }),
        );
      } catch (error) {
        lastError = error;
        if (error instanceof KmError && !error.transient) throw error;
        await sleep(Math.min(this.reconnectDelayMs, Math.max(0, deadline - Date.now())));
        continue;
      }
      try {
        if (delayMs !== undefined) await this.declareDelayQueue(session, delayMs);
        await new Promise<void>((resolve, reject) => {
          session.channel.sendToQueue(
            target,
            Buffer.from(message, 'utf8'),
            { persistent: true, contentType: 'text/plain', messageId: randomUUID(), headers: { [ATTEMPTS_HEADER]: failedAttempts } },
            (error: unknown) => (error ? reject(error instanceof Error ? error : new Error('the broker refused the message')) : resolve()),
          );
        });
        return;
      } catch (error) {
        lastError = error;
        const typed = translateAmqpError(error, target);
        if (!typed.transient) throw typed;
        await sleep(Math.min(this.reconnectDelayMs, Math.max(0, deadline - Date.now())));
      }
    }
    if (this.closed) throw new KmError('invalid_argument', 'the queue is closed', { connector: CONNECTOR });
    throw new KmError('transient', `RabbitMQ: no confirmed publish to "${target}" within ${this.publishTimeoutMs} ms`, {
      connector: CONNECTOR,
      transient: true,
      cause: lastError,
    });
  }

  private async declareDelayQueue(session: Session, delayMs: number): Promise<void> {
    const queue = this.queue();
    const name = QueueNames.delay(queue, delayMs);
    if (session.delayQueues.has(name)) return;
    await session.channel.assertQueue(name, queueArguments(this.type).delay(queue, delayMs));
    session.delayQueues.add(name);
  }

  private deliver(session: Session, message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled the consumer (queue deleted): start over on a new session.
      this.lost(session, 'consumer cancelled by the broker');
      return;
    }
    const work = this.handle(session, message).catch((error: unknown) =>
      this.logger.error('RabbitMQ delivery handling failed', { queue: this.name, error: (error as Error).message }),
    );
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async handle(session: Session, message: ConsumeMessage): Promise<void> {
    const headers = message.properties.headers as Record<string, unknown> | undefined;
    const attempt = deliveryAttempt(headers, message.fields.redelivered);
    // Deliveries may arrive before the session is published as current: only a dead session is stale.
    const stale = () => this.closed || session.dead;
    if (attempt > this.maxAttempts) {
      // Delivered too often without an answer (consumers dying on it): poison it unread.
      if (!stale()) session.channel.nack(message, false, false);
      return;
    }
    let result: QueueHandlerResult;
    try {
      result = await this.handler!(message.content.toString('utf8'));
    } catch (error) {
      this.logger.warn('queue handler threw; retrying the message', { queue: this.name, error: (error as Error).message });
      result = 'transient';
    }
    // A result on a dead channel cannot be acknowledged: the broker has already given the
    // message back, and it will be delivered again.
    if (stale()) return;
    if (result === 'ok') return session.channel.ack(message);
    if (result === 'fatal' || attempt >= this.maxAttempts) return session.channel.nack(message, false, false);
    try {
      const delay = retryDelay(attempt, this.retryDelayMs, this.maxRetryDelayMs);
      await this.publish(QueueNames.delay(this.queue(), delay), message.content.toString('utf8'), attempt, delay);
      if (!stale()) session.channel.ack(message);
    } catch (error) {
      this.logger.warn('could not schedule a retry; the message goes back to the queue', {
        queue: this.name,
        error: (error as Error).message,
      });
      if (!stale()) session.channel.nack(message, false, true);
    }
  }
}

/** AMQP queue names: 1 to 255 bytes, `amq.` is reserved; km adds suffixes, so at most 200. */
function checkQueueName(name: string): string {
  if (name.length === 0 || Buffer.byteLength(name) > 200 || name.startsWith('amq.') || /[\u0000-\u001f]/.test(name)) {
    throw new InvalidInputError(
      'invalid_argument',
      `"${name}" cannot be a RabbitMQ queue name (1 to 200 bytes, not starting with "amq.")`,
      {
        connector: CONNECTOR,
      },
    );
  }
  return name;
}

function withHeartbeat(url: string, seconds: number): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=${Math.max(0, Math.floor(seconds))}`;
}
