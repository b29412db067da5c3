import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { isBlockedAddress, WebPageFetcher } from '../src/index.js';

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});
async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const allowed = (options = {}) => new WebPageFetcher({ allowPrivateNetworks: true, retryDelayMs: 5, ...options });

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a9fe:a9fe',
    '224.0.0.1',
  ])('refuses %s', (address) => expect(isBlockedAddress(address)).toBe(true));
  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('lets %s through', (address) =>
    expect(isBlockedAddress(address)).toBe(false),
  );
});

describe('WebPageFetcher address policy', () => {
  it('refuses loopback and the metadata address by default, naming the reason', async () => {
    const url = await serve((_q, r) => r.end('secret'));
    const fetcher = new WebPageFetcher();
    await expect(fetcher.fetch(`${url}/`)).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/127\.0\.0\.1.*allowPrivateNetworks/),
    });
    await expect(fetcher.fetch('http://169.254.169.254/latest/meta-data/')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(fetcher.fetch('http://[::ffff:127.0.0.1]:80/')).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('checks names after DNS resolution: localhost is refused', async () => {
    const url = await serve((_q, r) => r.end('secret'));
    const port = new URL(url).port;
    await expect(new WebPageFetcher({ retries: 0 }).fetch(`http://localhost:${port}/`)).rejects.toMatchObject({
      message: expect.stringMatching(/allowPrivateNetworks/),
    });
  });

  it('checks every redirect target', async () => {
    const target = await serve((_q, r) => r.end('internal'));
    const targetPort = new URL(target).port;
    const start = await serve((_q, r) => {
      r.writeHead(302, { location: `http://127.0.0.2:${targetPort}/admin` });
      r.end();
    });
    // A policy that allows 127.0.0.1 but not 127.0.0.2 stands for "public start, private target".
    const fetcher = new WebPageFetcher({ isBlocked: (a) => a === '127.0.0.2', retries: 0 });
    await expect(fetcher.fetch(`${start}/`)).rejects.toMatchObject({ message: expect.stringMatching(/127\.0\.0\.2/) });
  });

  it('succeeds when private networks are allowed, and refuses other schemes and credentials', async () => {
    const url = await serve((_q, r) => {
      r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      r.end('<h1>Hi</h1>');
    });
    const page = await allowed().fetch(`${url}/page`);
    expect(page).toMatchObject({ url: `${url}/page`, mimeType: 'text/html' });
    expect(page.data.toString()).toBe('<h1>Hi</h1>');
    await expect(allowed().fetch('file:///etc/passwd')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(allowed().fetch('ftp://example.com/x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(allowed().fetch('http://user:pw@example.com/')).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('WebPageFetcher limits', () => {
  it('follows redirects up to maxRedirects and reports the final URL', async () => {
    let base = '';
    base = await serve((req, res) => {
      const n = Number(req.url!.slice(1));
      if (n < 3) {
        res.writeHead(301, { location: `/${n + 1}` });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('arrived');
    });
    const page = await allowed().fetch(`${base}/0`);
    expect(page.url).toBe(`${base}/3`);
    await expect(allowed({ maxRedirects: 2 }).fetch(`${base}/0`)).rejects.toMatchObject({
      message: expect.stringMatching(/more than 2 redirects \(maxRedirects\)/),
    });
  });

  it('refuses a body over maxBytes, declared or streamed, and a gzip bomb', async () => {
    const big = Buffer.alloc(2_000_000, 'a');
    const bomb = gzipSync(Buffer.alloc(50_000_000));
    const url = await serve((req, res) => {
      if (req.url === '/declared') return res.end(big);
      if (req.url === '/bomb') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
        return res.end(bomb);
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(big.subarray(0, 1_000_000));
      res.end(big.subarray(1_000_000));
    });
    const fetcher = allowed({ maxBytes: 1_000_000 });
    await expect(fetcher.fetch(`${url}/declared`)).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/maxBytes/),
    });
    await expect(fetcher.fetch(`${url}/streamed`)).rejects.toMatchObject({ code: 'content_too_large' });
    await expect(fetcher.fetch(`${url}/bomb`)).rejects.toMatchObject({ code: 'content_too_large' });
  });

  it('retries transient failures, not client errors', async () => {
    let calls = 0;
    const url = await serve((req, res) => {
      calls++;
      if (req.url === '/missing') {
        res.writeHead(404);
        return res.end();
      }
      if (calls < 3) {
        res.writeHead(503);
        return res.end();
      }
      res.end('ok');
    });
    expect((await allowed().fetch(`${url}/flaky`)).data.toString()).toBe('ok');
    expect(calls).toBe(3);
    calls = 100;
    await expect(allowed().fetch(`${url}/missing`)).rejects.toMatchObject({ code: 'unsupported_content', transient: false });
    expect(calls).toBe(101);
  });

  it("carries a 429 or 503's Retry-After on its error, so the retry waits as the server asked", async () => {
    const once = await serve((_req, res) => {
      res.writeHead(503, { 'retry-after': '7' });
      res.end();
    });
    await expect(allowed({ retries: 0 }).fetch(`${once}/`)).rejects.toMatchObject({ transient: true, retryAfterMs: 7000 });
  });

  it('times out a server that never answers', async () => {
    const url = await serve(() => undefined);
    await expect(allowed({ timeoutMs: 300 }).fetch(`${url}/`)).rejects.toMatchObject({
      transient: true,
      message: expect.stringMatching(/300 ms \(timeoutMs\)/),
    });
  });

  it('sniffs the type of a body sent as octet-stream', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end('%PDF-1.7\n...');
    });
    expect((await allowed().fetch(`${url}/file`)).mimeType).toBe('application/pdf');
  });

  it("believes the server's Content-Type over the URL's extension (an HTML page at a .md or .pdf path is HTML)", async () => {
    const url = await serve((req, res) => {
      if (req.url === '/raw/README.md') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end('# Title\n\nRaw markdown.');
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body><h1>README</h1></body></html>');
    });
    // github.com/…/blob/main/README.md and …/wiki/File:X.pdf are HTML pages.
    expect((await allowed().fetch(`${url}/owner/repo/blob/main/README.md`)).mimeType).toBe('text/html');
    expect((await allowed().fetch(`${url}/wiki/File:Paper.pdf`)).mimeType).toBe('text/html');
    // A Content-Type that says nothing (text/plain, octet-stream) leaves the extension in charge.
    expect((await allowed().fetch(`${url}/raw/README.md`)).mimeType).toBe('text/markdown');
  });

  it('does not believe a Content-Type that the bytes contradict: a PDF sent as text/html is a PDF', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('%PDF-1.7\n\x00\x01binary');
    });
    expect((await allowed().fetch(`${url}/paper.pdf`)).mimeType).toBe('application/pdf');
    expect((await allowed().fetch(`${url}/download`)).mimeType).toBe('application/pdf');
  });
});
