import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One resource of a test site. */
export interface TestResource {
  body?: string | Buffer;
  /** @default text/html; charset=utf-8 */
  type?: string;
  etag?: string;
  /** @default 200 */
  status?: number;
  /** A redirect target (status 302 unless given). */
  location?: string;
}

/** A local site for site-source tests: resources by path (query included), mutable between requests. */
export interface TestSite {
  origin: string;
  resources: Map<string, TestResource>;
  /** Paths requested, in order. */
  requests: string[];
  /** Most requests served at the same time. */
  maxInFlight: number;
  /** Delay before answering, in ms. */
  delayMs: number;
  close(): Promise<void>;
}

/** Starts a site on 127.0.0.1 serving `resources` (404 for any other path). */
export async function startTestSite(resources: Record<string, TestResource | string> = {}): Promise<TestSite> {
  let inFlight = 0;
  const site: TestSite = {
    origin: '',
    resources: new Map(Object.entries(resources).map(([path, r]) => [path, typeof r === 'string' ? { body: r } : r])),
    requests: [],
    maxInFlight: 0,
    delayMs: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    site.requests.push(path);
    inFlight++;
    site.maxInFlight = Math.max(site.maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      const resource = site.resources.get(path);
      if (!resource) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      if (resource.location) {
        res.writeHead(resource.status ?? 302, { location: resource.location });
        res.end();
        return;
      }
      const headers: Record<string, string> = { 'content-type': resource.type ?? 'text/html; charset=utf-8' };
      if (resource.etag) headers.etag = resource.etag;
      res.writeHead(resource.status ?? 200, headers);
      res.end(resource.body ?? '');
    }, site.delayMs);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return site;
}

/** An HTML page linking to `hrefs`. */
export function page(title: string, ...hrefs: string[]): string {
  return `<html><head><title>${title}</title></head><body><h1>${title}</h1>${hrefs.map((h) => `<a href="${h}">${h}</a>`).join(' ')}</body></html>`;
}

/** A sitemap `<urlset>` of `urls`. */
export function urlset(...urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
    .map((u) => `<url><loc>${u}</loc></url>`)
    .join('')}</urlset>`;
}
