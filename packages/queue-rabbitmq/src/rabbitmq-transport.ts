import { randomUUID } from 'node:crypto';
import {
  BackoffPolicy,
  ConnectionKeeper,
  type QueueTransport,
  type TransportMessage,
  type TransportOpenOptions,
  withTimeout,
} from '@km/core/connector';
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import { amqpUrl, type RabbitMqQueueOptions } from './rabbitmq-config.js';
import { translateAmqpError } from './rabbitmq-errors.js';
import { ATTEMPTS_HEADER, QueueNames, checkQueueName, deliveryAttempt, queueArguments } from './rabbitmq-topology.js';

/** One connection with its confirm channel (and its consumer's tag); replaced as a whole after any failure. */
type Session = { connection: ChannelModel; channel: ConfirmChannel; consumerTag?: string };

/** Longest wait for the broker to confirm a consumer's cancellation at close, in ms. */
const CANCEL_TIMEOUT_MS = 5000;

/**
 * Closes a session so that what it acknowledged stays acknowledged. amqplib sends an ack without
 * waiting and queues frames per channel, so a connection closed right after an ack can reach the
 * broker before the ack does: the broker drops the ack and delivers the message again. Cancelling
 * the consumer first is a round trip on the ack's channel, answered after every earlier frame of
 * it (on a quorum queue, after its settles are applied). Bounded: a dead socket does not hang close.
 */
async function closeSession({ connection, channel, consumerTag }: Session): Promise<void> {
  if (consumerTag !== undefined) {
    const gaveUp = () => new Error('no cancel-ok in time');
    await withTimeout(channel.cancel(consumerTag), CANCEL_TIMEOUT_MS, gaveUp).catch(() => undefined);
  }
  await connection.close();
}

/** A delivery, with the session that can settle it. */
export interface RabbitMqDelivery extends TransportMessage {
  readonly raw: ConsumeMessage;
  readonly session: Session;
}

/** The transport of `RabbitMqQueue`: a confirm channel kept open by a `ConnectionKeeper`, delay tiers, dead-lettering. */
export class RabbitMqTransport implements QueueTransport<RabbitMqDelivery> {
  readonly names = { connector: 'rabbitmq', className: 'RabbitMqQueue', label: 'RabbitMQ' };
  /** Closing the channel hands back unacknowledged deliveries; each distinct retry delay is a delay queue, so no jitter. */
  readonly capabilities = { releasesOnClose: true, retryJitter: 'none' } as const;
  private readonly sessions: ConnectionKeeper<Session>;
  queueName = '';
  private consumer: TransportOpenOptions | undefined;
  /** Deliveries pushed by the broker and not yet taken by the engine (at most the prefetch). */
  private buffer: RabbitMqDelivery[] = [];

  constructor(private readonly options: RabbitMqQueueOptions) {
    const initialDelayMs = Math.max(10, options.reconnectDelayMs ?? 250);
    const backoff = new BackoffPolicy({ initialDelayMs, maxDelayMs: Math.max(initialDelayMs, 10_000), jitter: 'equal' });
    // Unacknowledged deliveries go back to the queue; acknowledged ones stay gone (see closeSession).
    this.sessions = new ConnectionKeeper({
      open: () => this.openSession(),
      close: closeSession,
      backoff,
      names: this.names,
      logger: options.logger,
    });
  }

  async open(name: string, options: TransportOpenOptions): Promise<void> {
    this.queueName = checkQueueName(`${this.options.queuePrefix ?? ''}${name}`);
    this.consumer = options.consume ? options : undefined;
    await this.sessions.get();
  }

  publish(body: string): Promise<void> {
    return this.send(this.queueName, body, 0);
  }

  async receive(max: number): Promise<RabbitMqDelivery[]> {
    return this.buffer.splice(0, max);
  }

  async ack(delivery: RabbitMqDelivery): Promise<void> {
    if (this.live(delivery)) delivery.session.channel.ack(delivery.raw);
  }

  /** Re-publishes to the delay queue of its tier, which dead-letters it back once the delay is over; then acks. */
  async retry(delivery: RabbitMqDelivery, delayMs: number): Promise<void> {
    await this.send(QueueNames.delay(this.queueName, delayMs), delivery.body, delivery.attempt, delayMs);
    await this.ack(delivery);
  }

  /** Rejects: the dead-letter exchange moves the message to `{queue}-poison`. */
  async poison(delivery: RabbitMqDelivery): Promise<void> {
    if (this.live(delivery)) delivery.session.channel.nack(delivery.raw, false, false);
  }

  async release(delivery: RabbitMqDelivery): Promise<void> {
    if (this.live(delivery)) delivery.session.channel.nack(delivery.raw, false, true);
  }

  close(): Promise<void> {
    return this.sessions.close();
  }

  /** A delivery of a lost session cannot be settled: the broker has given it back already. */
  private live(delivery: RabbitMqDelivery): boolean {
    return !this.sessions.closed && !this.sessions.isLost(delivery.session);
  }

  private async openSession(): Promise<Session> {
    const [queue, args] = [this.queueName, queueArguments(this.options.queueType)];
    const warn = (what: string) => (error: Error) => this.options.logger?.warn(`RabbitMQ ${what}`, { queue, error: error.message });
    let connection: ChannelModel | undefined;
    try {
      connection = await amqp.connect(amqpUrl(this.options), { timeout: this.options.connectTimeoutMs ?? 10_000 });
      connection.on('error', warn('connection error')); // an 'error' event without a listener would crash the process
      const channel = await connection.createConfirmChannel();
      channel.on('error', warn('channel error')); // a refused declaration (406) closes the channel: listen first
      await channel.assertQueue(QueueNames.poison(queue), args.queue(QueueNames.poison(queue)));
      await channel.assertQueue(queue, args.queue(queue));
      const session: Session = { connection, channel };
      connection.on('close', () => this.lost(session, 'connection closed'));
      channel.on('close', () => this.lost(session, 'channel closed'));
      connection.on('blocked', (reason: string) => this.options.logger?.warn('RabbitMQ blocked publishing', { queue, reason }));
      if (this.consumer) {
        await channel.prefetch(this.consumer.prefetch);
        const { consumerTag } = await channel.consume(queue, (raw) => this.deliver(session, raw), { noAck: false });
        session.consumerTag = consumerTag;
      }
      return session;
    } catch (error) {
      await connection?.close().catch(() => undefined);
      throw translateAmqpError(error, queue);
    }
  }

  private deliver(session: Session, raw: ConsumeMessage | null): void {
    // null: the broker cancelled the consumer (queue deleted); start over on a new session.
    if (raw === null) return this.lost(session, 'consumer cancelled by the broker');
    const attempt = deliveryAttempt(raw.properties.headers, raw.fields.redelivered);
    this.buffer.push({ body: raw.content.toString('utf8'), attempt, raw, session });
    this.consumer?.wake();
  }

  private lost(session: Session, why: string): void {
    this.buffer = this.buffer.filter((delivery) => delivery.session !== session); // the broker delivers these again
    this.sessions.lost(session, why);
  }

  /** Publishes with a confirm (declaring the delay queue first), waiting for a connection and retrying until `publishTimeoutMs`. */
  private send(target: string, body: string, failedAttempts: number, delayMs?: number): Promise<void> {
    const options = { persistent: true, contentType: 'text/plain', headers: { [ATTEMPTS_HEADER]: failedAttempts } };
    const publish = async ({ channel }: Session) => {
      if (delayMs !== undefined) await channel.assertQueue(target, queueArguments(this.options.queueType).delay(this.queueName, delayMs));
      channel.sendToQueue(target, Buffer.from(body, 'utf8'), { ...options, messageId: randomUUID() });
      await channel.waitForConfirms(); // rejects when the broker refuses it
    };
    const translate = (error: unknown) => translateAmqpError(error, target);
    const timeoutMs = this.options.publishTimeoutMs ?? 30_000;
    return this.sessions.use(publish, { timeoutMs, what: `confirmed publish to "${target}"`, translate });
  }
}
