import { KmError } from '../errors/km-error.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { withTimeout } from '../util/timeout.js';
import type { BackoffPolicy } from './backoff-policy.js';
import { isTransient, withRetries } from './with-retries.js';

/** Options of a {@link ConnectionKeeper}. */
export interface ConnectionKeeperOptions<T> {
  /** Opens a connection; throws a typed error, `transient` when another try may succeed. */
  open: () => Promise<T>;
  /** Closes a connection; its errors are ignored. */
  close: (connection: T) => Promise<void>;
  /** Waits between reconnections, and between the tries of {@link ConnectionKeeper.use}. */
  backoff: BackoffPolicy;
  /** `connector` of the errors it throws (`rabbitmq`), and `label` of its messages and log lines (`RabbitMQ`). */
  names: { connector: string; label: string };
  /** Told about lost connections, failed reconnections and reconnections. @default silentLogger */
  logger?: Logger;
}

/** Options of {@link ConnectionKeeper.use}. */
export interface ConnectionUseOptions {
  /** How long to wait for a connection and retry transient failures, in ms, from the call. */
  timeoutMs: number;
  /** What is being done, for the timeout's message (`'a confirmed publish to "extract"'`). */
  what: string;
  /** Turns a backend error into a typed one (its `transient` decides a retry). @default the error as it is */
  translate?: (error: unknown) => unknown;
}

/**
 * Keeps one live connection to a broker: opens it on first use (once for all callers), and when
 * told it was lost, opens another in the background with backoff until `close()`. `use` runs an
 * operation on a live connection until a deadline (publish-until-confirmed).
 *
 * ```ts
 * const keeper = new ConnectionKeeper({ open: connect, close: (c) => c.close(), backoff: new BackoffPolicy({ initialDelayMs: 250, maxDelayMs: 10_000 }), names: { connector: 'mq', label: 'MQ' } });
 * connection.on('close', () => keeper.lost(connection, 'connection closed'));
 * await keeper.use((c) => c.publish(message), { timeoutMs: 30_000, what: 'a publish' });
 * ```
 */
export class ConnectionKeeper<T extends object> {
  private current: T | undefined;
  private readonly dead = new WeakSet<T>();
  private opening: Promise<T> | undefined;
  private readonly closing = new AbortController();
  private readonly logger: Logger;

  constructor(private readonly options: ConnectionKeeperOptions<T>) {
    this.logger = options.logger ?? silentLogger;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** The live connection, opening one if there is none. */
  get(): Promise<T> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    this.opening ??= this.options
      .open()
      .then(async (connection) => {
        const { connector, label } = this.options.names;
        if (this.closed || this.dead.has(connection)) {
          await this.options.close(connection).catch(() => undefined);
          if (this.closed) throw new KmError('invalid_argument', `${label}: closed while connecting`, { connector });
          throw new KmError('transient', `${label}: the connection was lost while opening`, { connector, transient: true });
        }
        return (this.current = connection);
      })
      .finally(() => {
        this.opening = undefined;
      });
    return this.opening;
  }

  /** Whether `connection` was reported {@link lost}: what it holds can no longer be settled. */
  isLost(connection: T): boolean {
    return this.dead.has(connection);
  }

  /** `connection` died (a broker restart, a network cut): forget it and, unless closed, reconnect with backoff. */
  lost(connection: T, why: string): void {
    this.dead.add(connection);
    if (this.current !== connection) return;
    this.current = undefined;
    this.options.close(connection).catch(() => undefined);
    if (this.closed) return;
    const { label } = this.options.names;
    this.logger.warn(`${label} connection lost, reconnecting`, { why });
    withRetries(() => this.get(), {
      maxAttempts: Number.POSITIVE_INFINITY,
      backoff: this.options.backoff,
      isRetryable: () => true,
      signal: this.closing.signal,
      onRetry: ({ error, delayMs }) =>
        this.logger.warn(`${label} reconnection failed`, { error: (error as Error).message, retryInMs: delayMs }),
    })
      .then(() => this.logger.info(`${label} reconnected`))
      .catch(() => undefined); // closed meanwhile (or a logger that throws)
  }

  /**
   * Runs `operation` on a live connection, waiting for one and retrying transient failures with
   * the backoff for at most `timeoutMs`; then rejects with a transient `KmError`. A failure that is
   * not transient rejects at once (translated); after `close()` it rejects with `invalid_argument`.
   */
  async use<R>(operation: (connection: T) => Promise<R>, options: ConnectionUseOptions): Promise<R> {
    const { connector, label } = this.options.names;
    const translate = options.translate ?? ((error: unknown) => error);
    const deadline = Date.now() + options.timeoutMs;
    // A timer of our own, held until the end: AbortSignal.any keeps only weak references to its
    // sources, and an AbortSignal.timeout nobody else holds can be collected before it fires,
    // which left use() retrying forever. The deadline is also checked before every retry.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    const signal = AbortSignal.any([this.closing.signal, timeout.signal]);
    const pastDeadline = () => signal.aborted || Date.now() >= deadline;
    const noConnection = () => new KmError('transient', `${label}: no connection in time`, { connector, transient: true });
    try {
      return await withRetries(async () => operation(await withTimeout(this.get(), deadline - Date.now(), noConnection)), {
        maxAttempts: Number.POSITIVE_INFINITY,
        backoff: this.options.backoff,
        signal,
        isRetryable: (error) => !pastDeadline() && isTransient(translate(error)),
      });
    } catch (error) {
      if (this.closed) throw new KmError('invalid_argument', `${label}: the client is closed`, { connector, cause: error });
      if (!pastDeadline()) throw translate(error);
      throw new KmError('transient', `${label}: no ${options.what} within ${options.timeoutMs} ms`, {
        connector,
        transient: true,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops reconnecting and closes the live connection (or the one being opened). */
  async close(): Promise<void> {
    this.closing.abort();
    const connection = this.current ?? (await this.opening?.catch(() => undefined));
    this.current = undefined;
    if (connection !== undefined) await this.options.close(connection).catch(() => undefined);
  }
}
