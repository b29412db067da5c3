import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleService, startConsoleService } from './console-service.js';

describe('the service serves the console at /ui (access keys on)', () => {
  const key = randomBytes(32).toString('hex');
  let service: ConsoleService;
  beforeAll(async () => {
    service = await startConsoleService({ accessKey: key });
  });
  afterAll(() => service?.dispose());

  it('redirects /ui to /ui/ and serves index.html there without a key, with a content security policy', async () => {
    const redirect = await fetch(`${service.url}/ui?x=1`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/ui/?x=1');
    const page = await fetch(`${service.url}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<title>km console</title>');
    // No CDN, no web fonts: every script and style is a relative path of the build.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('serves the built assets with their content types, and index.html for paths without an extension', async () => {
    const html = await (await fetch(`${service.url}/ui/`)).text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="\.\/(assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await fetch(`${service.url}/ui/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    const css = await fetch(`${service.url}/ui/${style}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const fallback = await fetch(`${service.url}/ui/documents`);
    expect(fallback.status).toBe(200);
    expect(await fallback.text()).toBe(html);
  });

  it('names the access-key header in settings.json, without a key', async () => {
    const res = await fetch(`${service.url}/ui/settings.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ authHeader: 'Authorization' });
  });

  it('keeps the API behind the key while the page is public', async () => {
    expect((await fetch(`${service.url}/indexes`)).status).toBe(401);
    expect((await fetch(`${service.url}/indexes`, { headers: service.keyHeaders })).status).toBe(200);
  });

  it('answers 404 for a missing asset and for paths that leave the assets folder', async () => {
    expect((await fetch(`${service.url}/ui/assets/missing.js`)).status).toBe(404);
    // Sent as written (fetch would resolve the dot segments before sending).
    for (const path of [
      '/ui/../../package.json',
      '/ui/..%2f..%2fpackage.json',
      '/ui/%2e%2e/%2e%2e/package.json',
      '/ui/assets/..%2f..%2f..%2fsrc%2findex.ts',
      '/ui/..%5c..%5cpackage.json',
      '/ui/%2fetc%2fhost.conf',
    ]) {
      const res = await rawGet(service.url, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('"name": "@km/console"');
      expect(res.body, path).not.toContain('root:');
    }
    expect((await fetch(`${service.url}/ui/%E0%A4%A.js`)).status).toBe(400);
    expect((await fetch(`${service.url}/ui/a%00.js`)).status).toBe(400);
  });
});

/** A GET whose path is sent exactly as given. */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
