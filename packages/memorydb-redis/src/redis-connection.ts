import { InvalidInputError, isKmError, KmError, type Logger } from '@km/core';
import { createClient, ErrorReply, RESP_TYPES } from 'redis';
import { checkQueryEngine } from './query-engine-check.js';
import type { RedisClient, RedisMemoryDbOptions } from './redis-config.js';
import { translateRedisError } from './redis-errors.js';

/**
 * The connector's hold on one node-redis client: builds it from a URL (RESP2, a reconnect
 * strategy that gives up after `connectRetries` attempts so calls fail instead of hanging) or
 * takes yours; refuses a client on a database other than 0 (see {@link databaseRefusal});
 * connects it on first use and then checks once that the server has the query engine (see
 * {@link checkQueryEngine}); reconnects a client whose strategy gave up; logs
 * the client's 'error' events so they never escape as unhandled.
 */
export class RedisConnection {
  readonly client: RedisClient;
  /** The same client reading bulk strings as Buffers (vectors are binary). */
  readonly binary: RedisClient;
  private readonly ownsClient: boolean;
  private readonly onError: (error: unknown) => void;
  private connecting: Promise<unknown> | undefined;
  private checked: Promise<void> | undefined;
  /** Why this client can never work, known before connecting (a database other than 0). */
  private readonly refusal: KmError | undefined;

  constructor(options: RedisMemoryDbOptions) {
    const retries = Math.max(0, Math.floor(options.connectRetries ?? 3));
    this.ownsClient = !options.client;
    this.client =
      (options.client as unknown as RedisClient | undefined) ??
      (createClient({
        url: options.url!,
        RESP: 2,
        socket: {
          // A refused handshake (WRONGPASS, NOAUTH) will not pass on retry: stop at once.
          reconnectStrategy: (attempt: number, cause: Error) =>
            cause instanceof ErrorReply
              ? cause
              : attempt >= retries
                ? new Error(`cannot reach Redis after ${attempt + 1} attempts: ${cause.message}`)
                : Math.min(100 * 2 ** attempt, 2000),
        },
      }) as unknown as RedisClient);
    if (typeof (this.client as { ft?: { search?: unknown } }).ft?.search !== 'function') {
      throw new InvalidInputError(
        'invalid_argument',
        "give RedisMemoryDb a client from the redis package's createClient (it has the FT.* commands)",
        {
          connector: 'redis',
        },
      );
    }
    this.refusal = databaseRefusal(this.client.options?.database);
    this.binary = this.client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }) as unknown as RedisClient;
    const logger: Logger | undefined = options.logger;
    this.onError = (error: unknown) =>
      logger?.warn('[redis] client error', { error: error instanceof Error ? error.message : String(error) });
    this.client.on('error', this.onError);
  }

  /**
   * The connected, checked client; connection trouble is a transient KmError, a database other
   * than 0 or a server without the query engine `not_configured`.
   */
  async ready(): Promise<void> {
    if (this.refusal) throw this.refusal;
    await this.open();
    this.checked ??= checkQueryEngine(this.client).catch((error: unknown) => {
      // A refusal stands (the server will not grow a module); anything else is tried again next time.
      if (!isKmError(error, 'not_configured')) this.checked = undefined;
      throw translateRedisError(error, '');
    });
    await this.checked;
  }

  /** Quits a client the connector built; a client given in is left open (its error listener is removed). */
  async close(): Promise<void> {
    this.checked = undefined;
    if (!this.ownsClient) {
      this.client.off('error', this.onError);
      return;
    }
    if (this.client.isOpen) await this.client.close();
  }

  private async open(): Promise<void> {
    if (this.client.isOpen) return;
    this.connecting ??= this.client.connect().finally(() => {
      this.connecting = undefined;
    });
    try {
      await this.connecting;
    } catch (error) {
      throw translateRedisError(error, '');
    }
  }
}

/**
 * RediSearch indexes database 0 only (FT.CREATE answers "Cannot create index on db != 0"): a
 * client that selects another database (the URL's path `/N`, or `database` of your client) is
 * refused with `not_configured` naming it; undefined for database 0.
 */
export function databaseRefusal(database: number | undefined): KmError | undefined {
  if (!database) return undefined;
  return new KmError(
    'not_configured',
    `the Redis Query Engine indexes database 0 only; this connection uses database ${database} (drop "/${database}" from the URL, or give a client without it)`,
    { connector: 'redis' },
  );
}
