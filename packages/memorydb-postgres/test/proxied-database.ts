import type { PGlite } from '@electric-sql/pglite';
import { startTcpProxy, type TcpProxy } from '@km/conformance';
import { afterAll, beforeAll } from 'vitest';
import { startPgliteServer, type PgliteServer } from '../src/testing.js';
import { freshPglite } from './fresh-pglite.js';

/** PostgreSQL (PGlite served on TCP) behind a proxy that can cut every connection. */
export interface ProxiedDatabase {
  /** Connection string through the proxy. */
  readonly url: string;
  /** The server's own port (behind the proxy). */
  readonly serverPort: number;
  /** Cuts every connection through the proxy, as a restart, a failover or an idle timeout would; returns how many. */
  cut(): number;
  /** Stops the server (the proxy stays: new connections are refused). */
  stop(): Promise<void>;
  /** Starts the server again on the same port, over the same database. */
  restart(): Promise<void>;
  /** Errors that reached `uncaughtException` since the file started (a test expects none). */
  readonly uncaught: readonly unknown[];
}

/**
 * Registers, for the calling test file, a PGlite database served on TCP behind a cutting proxy
 * (`beforeAll`) and its tear-down (`afterAll`), with an `uncaughtException` recorder.
 *
 * ```ts
 * const db = useProxiedDatabase();
 * it('survives a cut', async () => { const pool = new pg.Pool({ connectionString: db.url }); db.cut(); ... });
 * ```
 */
export function useProxiedDatabase(): ProxiedDatabase {
  let pglite: PGlite;
  let server: PgliteServer;
  let proxy: TcpProxy;
  let port = 0;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  beforeAll(async () => {
    pglite = await freshPglite();
    server = await startPgliteServer(pglite);
    port = Number(new URL(server.url).port);
    proxy = await startTcpProxy({ host: '127.0.0.1', port });
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await proxy.close();
    await server.stop();
    await pglite.close();
  });
  return {
    get url() {
      return `postgres://postgres@127.0.0.1:${proxy.port}/postgres`;
    },
    get serverPort() {
      return port;
    },
    cut: () => proxy.cut(),
    stop: () => server.stop(),
    restart: async () => {
      server = await startPgliteServer(pglite, { port });
    },
    uncaught,
  };
}
