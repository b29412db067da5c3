import { mkdtemp, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    // connectionTimeoutMs 0: the silent-socket timer and the keep-alive timeout alone must close them
    service = await startTestService({
      http: { headersTimeoutMs: 400, connectionTimeoutMs: 0, keepAliveTimeoutMs: 300, requestTimeoutMs: 2000, maxConnections: 200 },
    });
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
    drip.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
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
    c.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    let response = '';
    c.socket.on('data', (d: Buffer) => (response += d.toString()));
    await c.closed;
    expect(response).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe('at the connection cap, idle sockets make room for new clients', () => {
  let service: Awaited<ReturnType<typeof startTestService>>;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // long timeouts: only the cap can close the idle sockets during the test
    service = await startTestService({
      http: { headersTimeoutMs: 60_000, connectionTimeoutMs: 0, keepAliveTimeoutMs: 60_000, maxConnections: 20 },
    });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await service.dispose();
  });

  it('closes the oldest silent sockets so that /health answers with 40 idle sockets and a cap of 20', async () => {
    const idle: Array<{ socket: Socket; closed: Promise<void> }> = [];
    for (let i = 0; i < 40; i++) {
      const c = await open(service.url);
      idle.push(c);
      sockets.push(c.socket);
    }
    expect(await health(service.url)).toBe(200);
    // the oldest ones went first
    await Promise.all(idle.slice(0, 20).map((c) => c.closed));
  });

  it('keeps a socket that is serving a request and closes an idle one instead', async () => {
    const busy = await open(service.url);
    sockets.push(busy.socket);
    // a request whose body has not arrived: in progress
    busy.socket.write('POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    let busyClosed = false;
    void busy.closed.then(() => (busyClosed = true));
    for (let i = 0; i < 25; i++) sockets.push((await open(service.url)).socket);
    expect(await health(service.url)).toBe(200);
    expect(busyClosed).toBe(false);
  });
});

describe('connection limit settings', () => {
  let unlimitedLimits = '';
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-limits-'));
    unlimitedLimits = join(dir, 'limits');
    await writeFile(
      unlimitedLimits,
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            unlimited            unlimited            files\n',
    );
  });

  it('derive the connection cap from the descriptor limit when not set', () => {
    expect(maxConnectionsFor(0, 1024)).toBe(512);
    expect(maxConnectionsFor(0, 20_000)).toBe(10_000);
    expect(maxConnectionsFor(0, 40)).toBe(32);
    expect(maxConnectionsFor(0, undefined)).toBe(1024);
    expect(maxConnectionsFor(77, 1024)).toBe(77);
    expect(maxConnectionsFor(0, readOpenFilesLimit(unlimitedLimits))).toBe(16_384);
    if (process.platform === 'linux') expect(readOpenFilesLimit()).toBeGreaterThan(0);
  });

  it('are read from the environment and refused with the setting name when wrong', () => {
    const config = loadConfig({
      env: { KM_HTTP_HEADERS_TIMEOUT_MS: '5000', KM_HTTP_MAX_CONNECTIONS: '300', KM_HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000' },
    });
    expect(config.http).toMatchObject({
      headersTimeoutMs: 5000,
      maxConnections: 300,
      keepAliveTimeoutMs: 2000,
      connectionTimeoutMs: 120_000,
      requestTimeoutMs: 0,
      minUploadBytesPerSecond: 240,
      minUploadRateGraceMs: 5000,
    });
    expect(loadConfig({ env: {} }).http.keepAliveTimeoutMs).toBe(72_000);
    expect(
      loadConfig({ env: { KM_HTTP_MIN_UPLOAD_BYTES_PER_SECOND: '1000', KM_HTTP_MIN_UPLOAD_RATE_GRACE_MS: '2000' } }).http,
    ).toMatchObject({ minUploadBytesPerSecond: 1000, minUploadRateGraceMs: 2000 });
    expect(() => loadConfig({ env: { KM_HTTP_MIN_UPLOAD_RATE_GRACE_MS: '0' } })).toThrow(/KM_HTTP_MIN_UPLOAD_RATE_GRACE_MS/);
    expect(() => loadConfig({ env: { KM_HTTP_MAX_CONNECTIONS: '-1' } })).toThrow(/KM_HTTP_MAX_CONNECTIONS/);
    expect(() => loadConfig({ env: { KM_HTTP_HEADERS_TIMEOUT_MS: 'soon' } })).toThrow(/KM_HTTP_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ env: { KM_HTTP_HEADERS_TIMEOUT_MS: '900000', KM_HTTP_REQUEST_TIMEOUT_MS: '600000' } })).toThrow(
      /KM_HTTP_REQUEST_TIMEOUT_MS/,
    );
  });
});
