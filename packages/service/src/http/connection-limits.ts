import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServiceConfig } from '../config.js';

/** Connections accepted when the descriptor limit cannot be read (not Linux). */
export const FALLBACK_MAX_CONNECTIONS = 1024;

/**
 * The soft limit of open file descriptors of this process (`ulimit -n`), read from
 * `/proc/self/limits` on Linux; undefined elsewhere or when unlimited.
 */
export function readOpenFilesLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
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
 * after `requestTimeoutMs`. Node checks the last two every `connectionsCheckingInterval`.
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
 * Caps the server's connections and closes silent ones. A socket must bring a complete
 * request within `headersTimeoutMs` of connecting, or it is destroyed: Node applies its
 * headers timeout and socket timeout only once bytes arrive (measured on Node 20 with the
 * options above), so a flood of connections that never send a byte would otherwise stay open.
 */
export function applyConnectionLimits(server: Server, http: ServiceConfig['http'], fdLimit = readOpenFilesLimit()): void {
  server.maxConnections = maxConnectionsFor(http.maxConnections, fdLimit);
  const served = new WeakSet<object>();
  server.on('request', (request: IncomingMessage) => served.add(request.socket));
  server.on('connection', (socket: Socket) => {
    if (http.connectionTimeoutMs > 0) socket.setTimeout(http.connectionTimeoutMs);
    const timer = setTimeout(() => {
      if (!served.has(socket)) socket.destroy();
    }, http.headersTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
