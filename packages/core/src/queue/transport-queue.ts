import { type Attributes, context, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { IQueue, QueueConnectOptions, QueueDelivery, QueueHandlerResult } from '../contracts/queue.js';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { BackoffPolicy } from '../retry/backoff-policy.js';
import { isTransient } from '../retry/with-retries.js';
import { traceContextOfMessage, withTraceContext } from '../tracing/message-trace-context.js';
import { KmAttributes, MessagingAttributes } from '../tracing/span-attributes.js';
import { withSpan } from '../tracing/with-span.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { checkQueueConnect } from './connect-checks.js';
import { LeaseRenewal } from './lease-renewal.js';
import type { QueueTransport, TransportMessage } from './queue-transport.js';

/**
 * Options of the consumer engine, shared by every queue's options; a transport may declare other
 * defaults (see `QueueTransport.defaults`).
 */
export interface QueueConsumerOptions {
  /**
   * Deliveries of a message before it moves to the poison queue; a message delivered more often
   * (consumers dying on it) is poisoned unread. Queues made for the distributed orchestrator get
   * it derived from the step attempts (`stepQueueMaxAttempts`). @default 5
   */
  maxAttempts?: number;
  /** Ceiling of the first retry's delay of a transient failure, in ms, doubled per attempt (`BackoffPolicy`). @default 1000 */
  retryDelayMs?: number;
  /** Longest retry delay, in ms. @default 60000 */
  maxRetryDelayMs?: number;
  /** Messages handled at once by this client (a broker's prefetch). @default 1 */
  concurrency?: number;
  /** Told about handler errors, failed receives, settles and renewals, poisoned messages, lost connections. @default silentLogger */
  logger?: Logger;
}

type Handler = (message: string, delivery?: QueueDelivery) => Promise<QueueHandlerResult>;

/** First wait of an idle poll, in ms; it doubles up to the transport's `pollIntervalMs`. */
const FIRST_POLL_DELAY_MS = 50;
/** Waits after receives that failed in a row: 0.5 s doubling to 30 s, half of each drawn at random. */
const RECEIVE_BACKOFF = new BackoffPolicy({ initialDelayMs: 500, maxDelayMs: 30_000, jitter: 'equal' });

/**
 * The one consumer engine of km's queues: an `IQueue` over a {@link QueueTransport}. It owns the
 * connect checks, the receive loop and its concurrency cap, attempts (as the transport counts
 * them across crashes), handler errors (a throw is `transient`), settling (`ok` → ack, `fatal`
 * or the last attempt → poison, `transient` → retry after the {@link BackoffPolicy} delay),
 * lease renewal while a handler runs, and close (hand back what is held, ignore late results).
 *
 * ```ts
 * class MyQueue extends TransportQueue<MyMessage> {
 *   constructor(options: MyQueueOptions) { super(new MyTransport(options), options); }
 * }
 * ```
 */
export class TransportQueue<M extends TransportMessage = TransportMessage> implements IQueue {
  /** Deliveries of a message before it moves to the poison queue. */
  readonly maxAttempts: number;
  /** Messages handled at once by this client. */
  readonly concurrency: number;
  /** The delays of retries. */
  readonly backoff: BackoffPolicy;
  protected readonly transport: QueueTransport<M>;
  private readonly logger: Logger;
  private handler: Handler | undefined;
  private name: string | undefined;
  private closed = false;
  private connecting: Promise<void> | undefined;
  private consuming: Promise<void> | undefined;
  /** Messages whose handler runs, with their lease renewal. */
  private readonly held = new Map<M, LeaseRenewal | undefined>();
  private readonly settling = new Set<Promise<void>>();
  /** Messages taken and not finished with: the concurrency cap counts these. */
  private active = 0;
  private woken = false;
  private waiter: (() => void) | undefined;

  constructor(transport: QueueTransport<M>, options: QueueConsumerOptions = {}) {
    const { defaults = {}, capabilities } = transport;
    this.transport = transport;
    this.maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? defaults.maxAttempts ?? 5));
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
    const initialDelayMs = Math.max(0, options.retryDelayMs ?? defaults.retryDelayMs ?? 1000);
    const maxDelayMs = Math.max(initialDelayMs, options.maxRetryDelayMs ?? defaults.maxRetryDelayMs ?? 60_000);
    this.backoff = new BackoffPolicy({ initialDelayMs, maxDelayMs, jitter: capabilities.retryJitter ?? 'full' });
    this.logger = options.logger ?? silentLogger;
  }

  /** The backend's name of the queue this client is connected to (prefixed or mapped as the transport does). */
  get queueName(): string | undefined {
    return this.name === undefined ? undefined : (this.transport.queueName ?? this.name);
  }

  onDequeue(handler: Handler): void {
    this.handler = handler;
  }

  /** Opens the queue (creating it and its poison queue if missing) and starts consuming when asked. Throws a typed error; may be called again after a failure. */
  async connect(name: string, options: QueueConnectOptions): Promise<void> {
    const { connector, className } = this.transport.names;
    checkQueueConnect({ closed: this.closed, connectedTo: this.name, hasHandler: Boolean(this.handler) }, options, {
      connector,
      className,
    });
    this.name = name;
    const opening = this.transport.open(name, { consume: options.dequeue, prefetch: this.concurrency, wake: this.wake });
    this.connecting = opening.catch(() => undefined);
    try {
      await opening;
    } catch (error) {
      this.name = undefined;
      throw error;
    }
    if (this.closed) throw new KmError('invalid_argument', `this ${className} was closed while connecting`, { connector });
    // The loop runs outside the caller's trace: each message continues its producer's (see `handle`).
    if (options.dequeue)
      this.consuming = context
        .with(ROOT_CONTEXT, () => this.consume())
        .catch((error: unknown) => this.log('error', 'consumer stopped', error));
  }

  async enqueue(message: string): Promise<void> {
    const { connector, className } = this.transport.names;
    if (typeof message !== 'string') throw new InvalidInputError('invalid_argument', 'a queue message must be a string', { connector });
    if (this.closed) throw new KmError('invalid_argument', `this ${className} is closed`, { connector });
    if (this.name === undefined) throw new KmError('invalid_argument', 'call connect() before using the queue', { connector });
    await withSpan(`km.queue.publish ${this.name}`, this.spanAttributes('send'), () => this.transport.publish(withTraceContext(message)), {
      kind: SpanKind.PRODUCER,
    });
  }

  /**
   * Stops receiving, hands back the messages in progress for another consumer, then closes the
   * transport. Handlers still running are not interrupted; their results are ignored.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake();
    await this.connecting;
    await this.consuming;
    // Newest first: a transport that puts messages back at the head keeps their order.
    const held = [...this.held].reverse();
    this.held.clear();
    for (const [, lease] of held) await lease?.stop();
    await Promise.allSettled([...this.settling]);
    if (!this.transport.capabilities.releasesOnClose) for (const [message] of held) await this.release(message);
    await this.transport.close();
  }

  /** Takes messages while there is room, until close(). */
  private async consume(): Promise<void> {
    const poll = this.transport.capabilities.pollIntervalMs;
    const firstPoll = Math.min(FIRST_POLL_DELAY_MS, poll ?? FIRST_POLL_DELAY_MS);
    let idle = firstPoll;
    let failures = 0;
    while (!this.closed) {
      const free = this.concurrency - this.active;
      this.woken = false;
      if (free <= 0) {
        await this.pause(); // a handler finishing wakes the loop
        continue;
      }
      let received = 0;
      try {
        const messages = await this.transport.receive(free);
        failures = 0;
        received = messages.length;
        for (const message of messages) {
          if (this.closed) await this.release(message);
          else this.take(message);
        }
      } catch (error) {
        const delayMs = RECEIVE_BACKOFF.delayMs(++failures);
        this.log(isTransient(error) ? 'warn' : 'error', 'polling failed; retrying', error, { delayMs });
        await this.pause(delayMs, false);
        continue;
      }
      if (received > 0) idle = firstPoll;
      else if (poll === undefined) await this.pause();
      else {
        await this.pause(idle);
        idle = Math.min(poll, idle * 2);
      }
    }
  }

  private take(message: M): void {
    this.active++;
    void this.handle(message)
      .catch((error: unknown) => this.log('error', 'delivery handling failed', error))
      .finally(() => {
        this.active--;
        this.wake();
      });
  }

  private async handle(message: M): Promise<void> {
    const { attempt } = message;
    if (attempt > this.maxAttempts) {
      return this.settle(message, 'poison', `delivered ${attempt} times without an answer`);
    }
    const { leaseMs } = this.transport.capabilities;
    const renew = this.transport.renew?.bind(this.transport);
    const lease =
      renew && leaseMs
        ? new LeaseRenewal(
            () => renew(message),
            leaseMs,
            (error) => this.log('warn', 'could not extend a message lease', error),
          )
        : undefined;
    this.held.set(message, lease);
    const result = await this.traced(message);
    await lease?.stop();
    if (!this.held.delete(message)) return; // handed back by close(): this result comes too late
    if (result === 'ok') return this.settle(message, 'ack');
    if (result === 'fatal' || attempt >= this.maxAttempts)
      return this.settle(message, 'poison', result === 'fatal' ? 'fatal' : `failed ${attempt} times`);
    return this.settle(message, 'retry', '', typeof result === 'object' ? result.retryAfterMs : undefined);
  }

  /** {@link run} in a `km.queue.process <queue>` span that continues the trace the message carries. */
  private traced(message: M): Promise<QueueHandlerResult> {
    const attributes = { ...this.spanAttributes('process'), [KmAttributes.queueAttempt]: message.attempt };
    const parent = traceContextOfMessage(message.body);
    return withSpan(
      `km.queue.process ${this.name}`,
      attributes,
      async (span) => {
        const result = await this.run(message.body, { attempt: message.attempt, maxAttempts: this.maxAttempts });
        const name = typeof result === 'object' ? 'transient' : result;
        span.setAttribute(KmAttributes.queueResult, name);
        if (name !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: name });
        return result;
      },
      { kind: SpanKind.CONSUMER, parent },
    );
  }

  private spanAttributes(operation: 'send' | 'process'): Attributes {
    return {
      [MessagingAttributes.system]: this.transport.names.connector,
      [MessagingAttributes.destination]: this.queueName ?? '',
      [MessagingAttributes.operationType]: operation,
    };
  }

  /** The handler's answer; a throw, a rejection or an unknown answer is `transient`; a `retryAfterMs` is kept when it is a number >= 0. */
  private async run(body: string, delivery: QueueDelivery): Promise<QueueHandlerResult> {
    try {
      const result = await this.handler!(body, delivery);
      if (result === 'ok' || result === 'fatal') return result;
      const after = typeof result === 'object' && result !== null ? result.retryAfterMs : undefined;
      return typeof after === 'number' && Number.isFinite(after) && after >= 0 ? { retryAfterMs: after } : 'transient';
    } catch (error) {
      this.log('warn', 'handler threw; retrying the message', error);
      return 'transient';
    }
  }

  /**
   * Acks, poisons or retries (after the backoff's delay, or `retryAfterMs` capped by it); a settle
   * that fails hands the message back. close() waits for these.
   */
  private settle(message: M, action: 'ack' | 'poison' | 'retry', reason = '', retryAfterMs?: number): Promise<void> {
    const transport = this.transport;
    const settling = (async () => {
      try {
        if (action === 'ack') await transport.ack(message);
        else if (action === 'retry') await transport.retry(message, this.backoff.delayMs(message.attempt, retryAfterMs));
        else {
          await transport.poison(message, reason);
          // The message names what it was about (a pipeline step's names its index and document).
          this.log('warn', 'moved a message to the poison queue', undefined, { why: reason, message: message.body.slice(0, 300) });
        }
      } catch (error) {
        this.log('warn', `could not ${action} a message; handing it back`, error);
        await transport.release(message).catch(() => undefined);
      }
    })();
    this.settling.add(settling);
    void settling.finally(() => this.settling.delete(settling));
    return settling;
  }

  private async release(message: M): Promise<void> {
    await this.transport.release(message).catch((error: unknown) => this.log('warn', 'could not hand a message back', error));
  }

  /** Waits for `ms` (forever without), a wake-up (when `wakeable`) or close(). */
  private pause(ms?: number, wakeable = true): Promise<void> {
    if (this.closed || (wakeable && this.woken)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      this.waiter = wakeable ? done : () => void (this.closed && done());
    });
  }

  private readonly wake = (): void => {
    this.woken = true;
    this.waiter?.();
  };

  private log(level: 'warn' | 'error', message: string, error?: unknown, fields: Record<string, unknown> = {}): void {
    try {
      const described = error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) };
      this.logger[level](`${this.transport.names.label} ${message}`, { queue: this.name, ...described, ...fields });
    } catch {
      // A logger that fails must not stop the consumer.
    }
  }
}
