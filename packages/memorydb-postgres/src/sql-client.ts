import { isQueryTimeout } from './postgres-errors.js';

/** Rows of a query. */
export interface SqlResult<R> {
  rows: R[];
}

/** Runs parameterised SQL. */
export interface SqlQueryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<SqlResult<R>>;
}

/** A connection the connector can query and open transactions on. */
export interface SqlClient extends SqlQueryable {
  /** Runs `fn` inside BEGIN/COMMIT on one connection; rolls back when it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /** Releases what the connector opened itself (not what the caller passed in). */
  close(): Promise<void>;
  /**
   * Runs `fn` on a client whose queries have no `query_timeout`, for statements that may run
   * for minutes (an HNSW build, VACUUM): a pool made from `connectionString` opens one
   * connection of its own for it; PGlite and a pool given in are used as they are.
   */
  withoutQueryTimeout?<T>(fn: (client: SqlClient) => Promise<T>): Promise<T>;
}

/** The slice of `pg.Pool` the connector uses. */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgPoolClientLike>;
  end(): Promise<void>;
  /** `pg.Pool` emits `error` when an idle connection dies; with no listener Node ends the process. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  listenerCount?(event: 'error'): number;
}

/** The slice of `pg.PoolClient` the connector uses. */
export interface PgPoolClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  release(error?: Error | boolean): void;
  /** A checked-out `pg` client has no `error` listener of the pool's: the connector adds its own while it holds it. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}

/** The slice of a PGlite instance the connector uses. */
export interface PGliteLike {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  transaction<T>(fn: (tx: { query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>): Promise<T>;
}

/**
 * A client over a `pg` pool; `owned` pools are ended by `close()`. A connection held for a
 * transaction is always released: to the pool when it still works, destroyed when it broke
 * (so a dead connection never goes back to the pool, and no slot is lost), or when a query
 * got no answer within `query_timeout` (a half-open connection).
 */
export function clientFromPool(pool: PgPoolLike, owned: boolean): SqlClient {
  return {
    query: async <R>(text: string, params?: unknown[]) => (await pool.query(text, params)) as SqlResult<R>,
    async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      let broken: Error | undefined;
      // Between our queries the socket may die; the error then surfaces on the next query.
      const onError = (error: Error) => (broken ??= error);
      connection.on?.('error', onError);
      const release = (destroy?: Error | boolean) => {
        connection.removeListener?.('error', onError);
        connection.release(destroy);
      };
      try {
        await connection.query('BEGIN');
        const tx: SqlQueryable = {
          query: async <R>(text: string, params?: unknown[]) => (await connection.query(text, params)) as SqlResult<R>,
        };
        const result = await fn(tx);
        await connection.query('COMMIT');
        release(broken);
        return result;
      } catch (error) {
        try {
          if (broken) throw broken;
          // A query that got no answer still occupies the connection: ROLLBACK would wait behind it.
          if (isQueryTimeout(error)) throw error;
          await connection.query('ROLLBACK');
          release();
        } catch {
          release(true); // the connection is broken: drop it from the pool
        }
        throw error;
      }
    },
    close: async () => {
      if (owned) await pool.end();
    },
  };
}

/** A client over an (in-process) PGlite instance. */
export function clientFromPGlite(db: PGliteLike): SqlClient {
  return {
    query: <R>(text: string, params?: unknown[]) => db.query<R>(text, params),
    transaction: <T>(fn: (tx: SqlQueryable) => Promise<T>) =>
      db.transaction((tx) => fn({ query: <R>(text: string, params?: unknown[]) => tx.query<R>(text, params) })),
    close: async () => undefined,
  };
}
