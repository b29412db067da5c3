import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryWebClient, MemoryWebClientError } from '../src/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A local server answering each request with the next handler (the last one repeats); returns its URL and the requests' times. */
async function serve(...handlers: Handler[]): Promise<{ url: string; times: number[]; bodies: string[] }> {
  const times: number[] = [];
  const bodies: string[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      times.push(Date.now());
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      handlers[Math.min(times.length - 1, handlers.length - 1)]!(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, times, bodies };
}

const unavailable =
  (retryAfter?: string, status = 503): Handler =>
  (_req, res) => {
    res.writeHead(status, {
      'content-type': 'application/problem+json',
      ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
    });
    res.end(JSON.stringify({ status, title: 'Service Unavailable', detail: 'postgres is down', code: 'transient' }));
  };
const indexes: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ results: [{ name: 'docs' }] }));
};

describe('MemoryWebClient retries while the service answers 503 or 429', () => {
  it('waits what Retry-After asks, then succeeds', async () => {
    const { url, times } = await serve(unavailable('1'), indexes);
    expect(await new MemoryWebClient(url).listIndexes()).toEqual([{ name: 'docs' }]);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('retries a 429 too, and sends the same body again', async () => {
    const { url, bodies } = await serve(unavailable('0', 429), (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ query: 'x', noResult: true, results: [] }));
    });
    expect(await new MemoryWebClient(url).search('penguins')).toMatchObject({ noResult: true });
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
  });

  it('gives up after `retries`, with the typed error carrying retryAfterMs', async () => {
    const { url, times } = await serve(unavailable('0'));
    const error = await new MemoryWebClient(url, { retries: 2 }).listIndexes().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryWebClientError);
    expect(error).toMatchObject({ status: 503, transient: true, retryAfterMs: 0, message: expect.stringContaining('postgres is down') });
    expect(times).toHaveLength(3);
  });

  it('does not wait longer than maxRetryDelayMs: a longer Retry-After ends the retries', async () => {
    const { url, times } = await serve(unavailable('3600'), indexes);
    const started = Date.now();
    await expect(new MemoryWebClient(url, { maxRetryDelayMs: 2000 }).listIndexes()).rejects.toMatchObject({
      status: 503,
      retryAfterMs: 3_600_000,
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(times).toHaveLength(1);
  });

  it('backs off without Retry-After, and does not retry other errors', async () => {
    const { url, times } = await serve(unavailable(), indexes);
    expect(await new MemoryWebClient(url).listIndexes()).toHaveLength(1);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(450);

    const other = await serve(unavailable(undefined, 500), indexes);
    await expect(new MemoryWebClient(other.url).listIndexes()).rejects.toMatchObject({ status: 500 });
    expect(other.times).toHaveLength(1);
  });

  it('stops waiting when the caller aborts', async () => {
    const { url } = await serve(unavailable('10'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(new MemoryWebClient(url).search('x', { signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
  });
});
