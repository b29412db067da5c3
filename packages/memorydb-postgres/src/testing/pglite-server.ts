import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { PGliteLike } from '../sql-client.js';

/** An embedded PGlite database served on TCP to several processes. */
export interface PgliteServer {
  /** `postgres://postgres@127.0.0.1:{port}/postgres`, for `pg` and `PostgresMemoryDb`. */
  url: string;
  /** Stops listening (the database itself stays open: close it yourself). */
  stop: () => Promise<void>;
}

/** What the server needs of a PGlite instance. */
export interface ServablePGlite extends PGliteLike {
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
  execProtocolRawStream(message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }): Promise<void>;
  isInTransaction(): boolean;
  exec(sql: string): Promise<unknown>;
}

interface Batch {
  socket: Socket;
  messages: Buffer[];
}

const SSL_REQUEST = 80877103;
/** Message types that end a batch: Sync, simple Query, Flush. */
const BATCH_END = new Set(['S', 'Q', 'H']);

/**
 * Serves one PGlite (PostgreSQL + pgvector in WebAssembly) to many connections, so several
 * km processes on one machine (`km serve --no-handlers` and `km worker`s) can share one
 * memory DB without a PostgreSQL server. Queries run one batch at a time: fine for tests and
 * small deployments, not a substitute for a server under load.
 *
 * PGlite has a single session. PGlite has a single session, so connections must
 * not interleave inside an extended-protocol exchange (Parse…Sync) or a transaction:
 * `@electric-sql/pglite-socket` forwards message by message, which lets one process's
 * Parse replace another's unnamed statement. Here a connection's messages go to PGlite a
 * whole batch at a time (up to Sync or Query), and a connection that leaves a transaction open
 * keeps the database until it ends it (or disconnects, which rolls it back).
 */
export async function startPgliteServer(db: ServablePGlite, options: { host?: string; port?: number } = {}): Promise<PgliteServer> {
  const queue: Batch[] = [];
  let owner: Socket | undefined;
  let running = false;

  const pump = async () => {
    if (running) return;
    running = true;
    try {
      for (;;) {
        const at = owner ? queue.findIndex((b) => b.socket === owner) : 0;
        if (at < 0 || queue.length === 0) return;
        const [batch] = queue.splice(at, 1);
        for (const message of batch!.messages) {
          await db.runExclusive(() =>
            db.execProtocolRawStream(new Uint8Array(message), {
              onRawData: (data) => batch!.socket.writable && batch!.socket.write(Buffer.from(data)),
            }),
          );
        }
        owner = db.isInTransaction() && !batch!.socket.destroyed ? batch!.socket : undefined;
      }
    } finally {
      running = false;
    }
  };

  const server = createServer((socket) => {
    let buffer = Buffer.alloc(0);
    let started = false;
    let pending: Buffer[] = [];
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (length === 8 && message.readInt32BE(4) === SSL_REQUEST) {
            socket.write('N');
            continue;
          }
          started = true;
          queue.push({ socket, messages: [Buffer.from(message)] });
          continue;
        }
        if (buffer.length < 5) break;
        const length = 1 + buffer.readInt32BE(1);
        if (buffer.length < length) break;
        const message = Buffer.from(buffer.subarray(0, length));
        buffer = buffer.subarray(length);
        const type = String.fromCharCode(message[0]!);
        if (type === 'X') {
          socket.end();
          return;
        }
        pending.push(message);
        if (BATCH_END.has(type)) {
          queue.push({ socket, messages: pending });
          pending = [];
        }
      }
      void pump();
    });
    const gone = () => {
      for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.socket === socket) queue.splice(i, 1);
      if (owner === socket) {
        owner = undefined;
        void db
          .exec('ROLLBACK')
          .catch(() => undefined)
          .then(pump);
      }
    };
    socket.on('close', gone);
    socket.on('error', () => socket.destroy());
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    url: `postgres://postgres@${host.includes(':') ? `[${host}]` : host}:${port}/postgres`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
