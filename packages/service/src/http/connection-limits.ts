import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ServiceConfig } from '../config.js';

/** Connections accepted when the descriptor limit cannot be read (not Linux). */
export const FALLBACK_MAX_CONNECTIONS = 1024;

/** Stands for an `unlimited` open-files limit: twice the largest connection cap. */
const UNLIMITED_OPEN_FILES = 32_768;

/**
 * The soft limit of open file descriptors of this process (`ulimit -n`), read from
 * `/proc/self/limits` on Linux (`unlimited` counts as the 32768 that gives the 16384 cap);
 * undefined elsewhere.
 */
export function readOpenFilesLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return UNLIMITED_OPEN_FILES;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Connections the server accepts at once: `configured` when positive, otherwise half the
 * descriptor limit (the other half stays for content files, queues, memory DB pools and the
 * model), between 32 and 16384.
 */
export function maxConnectionsFor(configured: number, fdLimit: number | undefined): number {
  if (configured > 0) return configured;
  if (fdLimit === undefined) return FALLBACK_MAX_CONNECTIONS;
  return Math.min(16_384, Math.max(32, Math.floor(fdLimit / 2)));
}

/**
 * Fastify and Node HTTP server options that close idle and slow clients: an idle socket
 * after `connectionTimeoutMs`, a kept-alive one after `keepAliveTimeoutMs`, one whose headers
 * are not complete after `headersTimeoutMs` (slowloris), one whose request is not received
 * after `requestTimeoutMs` (0 by default: a slow upload is bounded by the minimum upload rate
 * instead). Node checks the last two every `connectionsCheckingInterval`.
 */
export function serverTimeouts(http: ServiceConfig['http']) {
  const checkEvery = Math.min(30_000, Math.max(50, Math.floor(Math.min(http.headersTimeoutMs, http.requestTimeoutMs || Infinity) / 4)));
  return {
    connectionTimeout: http.connectionTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    requestTimeout: http.requestTimeoutMs,
    http: { headersTimeout: http.headersTimeoutMs, requestTimeout: http.requestTimeoutMs, connectionsCheckingInterval: checkEvery },
  };
}

/**
 * Caps the server's connections and closes silent ones.
 *
 * - A socket must bring a complete request within `headersTimeoutMs` of connecting, or it is
 *   destroyed: Node applies its headers timeout and socket timeout only once bytes arrive
 *   (measured on Node 20), so a flood of connections that never send a byte would otherwise
 *   stay open.
 * - Past the cap a new connection is not refused (an attacker holding the cap with silent
 *   sockets would keep real clients out): the oldest socket with no request in progress (one
 *   that has sent nothing yet, or a kept-alive one between requests) is destroyed instead. The
 *   new one is refused only when every other socket is serving a request.
 */
export function applyConnectionLimits(
  server: Server,
  http: ServiceConfig['http'],
  fdLimit = readOpenFilesLimit(),
): { maxConnections: number; closeIdle(): void } {
  const maxConnections = maxConnectionsFor(http.maxConnections, fdLimit);
  /** Open sockets with no request in progress, oldest first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  const served = new WeakSet<object>();
  let open = 0;
  let closing = false;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    served.add(socket);
    idle.delete(socket);
    response.once('finish', () => {
      if (socket.destroyed) return;
      // kept alive, waiting for its next request; none comes once the server is closing
      if (closing) setImmediate(() => socket.destroy());
      else idle.add(socket);
    });
  });
  server.on('connection', (socket: Socket) => {
    open++;
    if (http.connectionTimeoutMs > 0) socket.setTimeout(http.connectionTimeoutMs);
    const timer = setTimeout(() => {
      if (!served.has(socket)) socket.destroy();
    }, http.headersTimeoutMs);
    timer.unref();
    socket.once('close', () => {
      open--;
      idle.delete(socket);
      clearTimeout(timer);
    });
    if (open > maxConnections) {
      const oldest = idle.values().next();
      if (oldest.done) {
        socket.destroy();
        return;
      }
      idle.delete(oldest.value);
      oldest.value.destroy();
    }
    idle.add(socket);
  });
  return {
    maxConnections,
    /** Closes the connections with no request in progress, and the others once their response is sent (for a prompt shutdown). */
    closeIdle() {
      closing = true;
      for (const socket of idle) socket.destroy();
      idle.clear();
    },
  };
}

/**
 * Suspends the socket's idle timeout while a request is handled (after its body was read), so
 * that a long answer (a slow `/ask`, an SSE stream whose first chunk takes a while) is not cut;
 * the timeout is armed again when the response is finished or closed, hijacked ones included.
 */
export function suspendIdleTimeout(request: IncomingMessage, response: ServerResponse, connectionTimeoutMs: number): void {
  const socket = request.socket;
  if (connectionTimeoutMs <= 0 || socket.destroyed) return;
  socket.setTimeout(0);
  let rearmed = false;
  const rearm = () => {
    if (rearmed) return;
    rearmed = true;
    // After a kept-alive response Node has armed its keep-alive timeout already: keep that one.
    if (!socket.destroyed && !socket.timeout) socket.setTimeout(connectionTimeoutMs);
  };
  response.once('finish', rearm);
  response.once('close', rearm);
}
