import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/index.js';
import { maxConnectionsFor, readOpenFilesLimit } from '../src/http/connection-limits.js';
import { startTestService } from './helpers.js';

const IDLE_SOCKETS = 60;

/** Opens a socket to the service and resolves once it is connected; `closed` resolves when the server ends it. */
function open(url: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined); // a reset is a close too
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** GET /health on a new connection (no kept-alive socket that the short keep-alive limit may be closing). */
function health(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${url}/health`, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('idle and slow clients are closed by the connection limits; /health keeps answering', () => {
  let service: Awaited<ReturnType<typeof startTestService>>;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    service = await startTestService({ http: { headersTimeoutMs: 400, connectionTimeoutMs: 800, keepAliveTimeoutMs: 300, requestTimeoutMs: 2000, maxConnections: 200 } });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await service.dispose();
  });

  it('closes a flood of idle sockets and a slowloris header drip', async () => {
    const idle = await Promise.all(Array.from({ length: IDLE_SOCKETS }, () => open(service.url)));
    sockets.push(...idle.map((c) => c.socket));
    // slowloris: a request line, then one header byte at a time, never the blank line
    const drip = await open(service.url);
    sockets.push(drip.socket);
    drip.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const dripper = setInterval(() => drip.socket.writable && drip.socket.write('X'), 50);
    try {
      expect(await health(service.url)).toBe(200); // while the flood is on
      // every one of them is ended by the server (the test bounds the wait, not the limits)
      await Promise.race([
        Promise.all([...idle.map((c) => c.closed), drip.closed]),
        new Promise((_, reject) => setTimeout(() => reject(new Error('sockets still open')), 20_000)),
      ]);
    } finally {
      clearInterval(dripper);
    }
    expect(await health(service.url)).toBe(200);
  });

  it('closes a kept-alive connection once it is idle', async () => {
    const c = await open(service.url);
    sockets.push(c.socket);
    c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    let response = '';
    c.socket.on('data', (d: Buffer) => (response += d.toString()));
    await c.closed;
    expect(response).toMatch(/^HTTP\/1\.1 200/);
  });

  it('applies the connection cap to the server', () => {
    expect(service.app.server.maxConnections).toBe(200);
  });
});

describe('connection limit settings', () => {
  it('derive the connection cap from the descriptor limit when not set', () => {
    expect(maxConnectionsFor(0, 1024)).toBe(512);
    expect(maxConnectionsFor(0, 20_000)).toBe(10_000);
    expect(maxConnectionsFor(0, 40)).toBe(32);
    expect(maxConnectionsFor(0, undefined)).toBe(1024);
    expect(maxConnectionsFor(77, 1024)).toBe(77);
    if (process.platform === 'linux') expect(readOpenFilesLimit()).toBeGreaterThan(0);
  });

  it('are read from the environment and refused with the setting name when wrong', () => {
    const config = loadConfig({ env: { KM_HTTP_HEADERS_TIMEOUT_MS: '5000', KM_HTTP_MAX_CONNECTIONS: '300', KM_HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000' } });
    expect(config.http).toMatchObject({ headersTimeoutMs: 5000, maxConnections: 300, keepAliveTimeoutMs: 2000, connectionTimeoutMs: 120_000, requestTimeoutMs: 600_000 });
    expect(() => loadConfig({ env: { KM_HTTP_MAX_CONNECTIONS: '-1' } })).toThrow(/KM_HTTP_MAX_CONNECTIONS/);
    expect(() => loadConfig({ env: { KM_HTTP_HEADERS_TIMEOUT_MS: 'soon' } })).toThrow(/KM_HTTP_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ env: { KM_HTTP_HEADERS_TIMEOUT_MS: '900000' } })).toThrow(/KM_HTTP_REQUEST_TIMEOUT_MS/);
  });
});
