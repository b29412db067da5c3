import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError, type SiteSourceOptions, type SyncItem, siteSource, WebPageFetcher } from '../src/index.js';
import { page, startTestSite, type TestSite, urlset } from './site-source-server.js';

let sites: TestSite[] = [];
afterEach(async () => {
  await Promise.all(sites.map((s) => s.close()));
  sites = [];
});
async function site(resources: Parameters<typeof startTestSite>[0]): Promise<TestSite> {
  const s = await startTestSite(resources);
  sites.push(s);
  return s;
}

/** Lists a source opened to the local server, with the skips it reported. */
async function list(options: SiteSourceOptions): Promise<{ items: SyncItem[]; skipped: [string, string][] }> {
  const skipped: [string, string][] = [];
  const source = siteSource({ allowPrivateAddresses: true, onSkip: (url, reason) => skipped.push([url, reason]), ...options });
  const items: SyncItem[] = [];
  for await (const item of source.list()) items.push(item);
  return { items, skipped };
}
const ids = (items: SyncItem[]) => items.map((i) => i.id).sort();
const text = async (item: SyncItem) => Buffer.from((await item.open()) as Uint8Array).toString('utf8');

describe('siteSource from a sitemap', () => {
  it('lists the pages of /sitemap.xml under the prefix, with names, types, tags and bodies', async () => {
    const s = await site({});
    s.resources.set('/sitemap.xml', {
      type: 'application/xml',
      body: urlset(`${s.origin}/docs/`, `${s.origin}/docs/intro`, `${s.origin}/docs/guide.txt`, `${s.origin}/blog/post`),
    });
    s.resources.set('/docs/', { body: page('Home') });
    s.resources.set('/docs/intro', { body: page('Intro') });
    s.resources.set('/docs/guide.txt', { type: 'text/plain', body: 'plain guide' });
    s.resources.set('/blog/post', { body: page('Post') });

    const { items } = await list({ url: `${s.origin}/docs/`, sitemap: true, tags: { team: ['docs'] } });

    expect(ids(items)).toEqual([`${s.origin}/docs/`, `${s.origin}/docs/guide.txt`, `${s.origin}/docs/intro`]);
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(byId.get(`${s.origin}/docs/`)).toMatchObject({ fileName: 'index.html', mimeType: 'text/html' });
    expect(byId.get(`${s.origin}/docs/intro`)).toMatchObject({
      fileName: 'intro.html',
      tags: { team: ['docs'], url: [`${s.origin}/docs/intro`] },
    });
    expect(byId.get(`${s.origin}/docs/guide.txt`)).toMatchObject({ fileName: 'guide.txt', mimeType: 'text/plain' });
    expect(await text(byId.get(`${s.origin}/docs/guide.txt`)!)).toBe('plain guide');
    expect(s.requests).not.toContain('/blog/post');
    // Pages are fetched once, during the listing: opening them reads the kept bodies.
    expect(s.requests.filter((p) => p === '/docs/guide.txt')).toHaveLength(1);
  });

  it('follows the sitemap index named by robots.txt', async () => {
    const s = await site({});
    s.resources.set('/robots.txt', { type: 'text/plain', body: `User-agent: *\nAllow: /\nSitemap: ${s.origin}/sitemap-index.xml\n` });
    s.resources.set('/sitemap-index.xml', {
      type: 'application/xml',
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${s.origin}/sm/a.xml</loc></sitemap><sitemap><loc>${s.origin}/sm/b.xml</loc></sitemap></sitemapindex>`,
    });
    s.resources.set('/sm/a.xml', { type: 'application/xml', body: urlset(`${s.origin}/one`, `${s.origin}/two`) });
    s.resources.set('/sm/b.xml', { type: 'application/xml', body: urlset(`${s.origin}/three`) });
    for (const p of ['/one', '/two', '/three']) s.resources.set(p, { body: page(p) });

    const { items } = await list({ url: `${s.origin}/`, sitemap: true });

    expect(ids(items)).toEqual([`${s.origin}/one`, `${s.origin}/three`, `${s.origin}/two`]);
    expect(s.requests).not.toContain('/sitemap.xml');
  });

  it('reads an explicit sitemap URL and skips the pages that fail, reporting them', async () => {
    const s = await site({});
    s.resources.set('/maps/pages.xml', { type: 'text/xml', body: urlset(`${s.origin}/a`, `${s.origin}/gone`, `${s.origin}/logo.png`) });
    s.resources.set('/a', { body: page('A') });
    s.resources.set('/logo.png', { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) });

    const { items, skipped } = await list({ url: `${s.origin}/`, sitemap: `${s.origin}/maps/pages.xml` });

    expect(ids(items)).toEqual([`${s.origin}/a`]);
    expect(skipped.map(([url]) => url).sort()).toEqual([`${s.origin}/gone`, `${s.origin}/logo.png`]);
    expect(skipped.find(([url]) => url.endsWith('/gone'))![1]).toMatch(/404/);
    expect(skipped.find(([url]) => url.endsWith('/logo.png'))![1]).toMatch(/image\/png/);
  });

  it('throws on malformed sitemap XML, naming the sitemap and the fault, and on a sitemap that is missing', async () => {
    const s = await site({ '/a': page('A') });
    s.resources.set('/sitemap.xml', { type: 'application/xml', body: `<urlset><url><loc>${s.origin}/a</loc></url>` });
    await expect(list({ url: `${s.origin}/`, sitemap: true })).rejects.toMatchObject({
      code: 'unsupported_content',
      message: expect.stringMatching(/sitemap .*\/sitemap\.xml is not a valid sitemap: element <urlset> is not closed/),
    });
    s.resources.set('/sitemap.xml', { body: '<html><body>Not found, but 200</body></html>' });
    await expect(list({ url: `${s.origin}/`, sitemap: true })).rejects.toMatchObject({
      code: 'unsupported_content',
      message: expect.stringMatching(/root element is <html>/),
    });
    s.resources.delete('/sitemap.xml');
    await expect(list({ url: `${s.origin}/`, sitemap: true })).rejects.toMatchObject({
      message: expect.stringMatching(/sitemap .* could not be fetched.*404/),
    });
  });
});

describe('siteSource crawling links', () => {
  it('follows links under the start prefix only: not outside it, not to another origin', async () => {
    const other = await site({ '/docs/c': page('C on another origin') });
    const s = await site({});
    s.resources.set('/docs/', {
      body: page('Home', 'a', '/docs/b#section', '/outside/x', `${other.origin}/docs/c`, 'mailto:x@example.com'),
    });
    s.resources.set('/docs/a', { body: page('A', 'sub/d', '../docs/b', '/docs-old/e') });
    s.resources.set('/docs/b', { body: page('B') });
    s.resources.set('/docs/sub/d', { body: page('D', '/docs/') });
    s.resources.set('/outside/x', { body: page('X') });
    s.resources.set('/docs-old/e', { body: page('E') });

    const { items } = await list({ url: `${s.origin}/docs/` });

    expect(ids(items)).toEqual([`${s.origin}/docs/`, `${s.origin}/docs/a`, `${s.origin}/docs/b`, `${s.origin}/docs/sub/d`]);
    expect(s.requests).not.toContain('/outside/x');
    expect(s.requests).not.toContain('/docs-old/e');
    expect(other.requests).toEqual([]);
    // Every page fetched once, whatever the number of links to it.
    expect(s.requests.filter((p) => p === '/docs/b')).toHaveLength(1);
  });

  it('respects robots.txt: the group of its own user agent, else *', async () => {
    const s = await site({
      '/robots.txt': {
        type: 'text/plain',
        body: 'User-agent: *\nDisallow: /\n\nUser-agent: km-sync\nDisallow: /private/\nAllow: /private/open\n',
      },
      '/': page('Home', '/public', '/private/secret', '/private/open'),
      '/public': page('Public'),
      '/private/secret': page('Secret'),
      '/private/open': page('Open'),
    });

    const { items, skipped } = await list({ url: `${s.origin}/` });

    expect(ids(items)).toEqual([`${s.origin}/`, `${s.origin}/private/open`, `${s.origin}/public`]);
    expect(s.requests).not.toContain('/private/secret');
    expect(skipped).toEqual([[`${s.origin}/private/secret`, 'disallowed by robots.txt']]);

    // respectRobots: false ignores it.
    const all = await list({ url: `${s.origin}/`, respectRobots: false });
    expect(ids(all.items)).toContain(`${s.origin}/private/secret`);
  });

  it('exclude stops fetching, include only chooses what is listed, <meta name="robots"> noindex/nofollow is obeyed', async () => {
    const s = await site({
      '/': page('Home', '/guide/', '/drafts/x', '/hidden'),
      '/guide/': page('Guide', '/guide/one.txt', '/guide/two'),
      '/guide/one.txt': { type: 'text/plain', body: 'one' },
      '/guide/two': page('Two'),
      '/drafts/x': page('Draft'),
      '/hidden': '<html><head><meta name="robots" content="noindex, nofollow"></head><body><a href="/behind">behind</a></body></html>',
      '/behind': page('Behind'),
    });

    const { items, skipped } = await list({ url: `${s.origin}/`, include: ['*.txt', /\/two$/], exclude: ['/drafts/*'] });

    expect(ids(items)).toEqual([`${s.origin}/guide/one.txt`, `${s.origin}/guide/two`]);
    expect(s.requests).toContain('/guide/');
    expect(s.requests).not.toContain('/drafts/x');
    expect(s.requests).not.toContain('/behind');
    expect(skipped).toEqual([[`${s.origin}/hidden`, expect.stringMatching(/noindex/)]]);
  });

  it('a robots.txt that answers 5xx makes the listing throw; one that is missing (404) means no rules', async () => {
    const s = await site({ '/': page('Home'), '/robots.txt': { status: 503, body: 'busy' } });
    const fetcher = new WebPageFetcher({ allowPrivateNetworks: true, retries: 0 });
    await expect(list({ url: `${s.origin}/`, fetcher })).rejects.toMatchObject({
      code: 'transient',
      message: expect.stringMatching(/robots\.txt could not be read.*503/),
    });
    s.resources.delete('/robots.txt');
    expect(ids((await list({ url: `${s.origin}/`, fetcher })).items)).toEqual([`${s.origin}/`]);
  });

  it('stops with an aborted error when its signal aborts', async () => {
    const s = await site({});
    s.resources.set('/', { body: page('Home', '/a', '/b', '/c') });
    for (const p of ['/a', '/b', '/c']) s.resources.set(p, { body: page(p) });
    const controller = new AbortController();
    const source = siteSource({ url: `${s.origin}/`, allowPrivateAddresses: true });
    const seen: string[] = [];
    const listing = (async () => {
      for await (const item of source.list(controller.signal)) {
        seen.push(item.id);
        controller.abort();
      }
    })();
    await expect(listing).rejects.toMatchObject({ code: 'aborted' });
    expect(seen).toHaveLength(1);
  });

  it('a start URL that cannot be fetched makes the listing throw (so a sync deletes nothing)', async () => {
    const s = await site({});
    await expect(list({ url: `${s.origin}/docs/` })).rejects.toMatchObject({
      message: expect.stringMatching(/start URL .* could not be fetched.*404/),
    });
  });

  it('fetches at most maxPages pages', async () => {
    const s = await site({});
    s.resources.set('/', { body: page('Home', '/p0', '/p1') });
    for (let i = 0; i < 20; i++) s.resources.set(`/p${i}`, { body: page(`P${i}`, `/p${i + 1}`, `/p${i + 2}`) });

    const { items, skipped } = await list({ url: `${s.origin}/`, maxPages: 5 });

    expect(items).toHaveLength(5);
    expect(s.requests.filter((p) => p !== '/robots.txt')).toHaveLength(5);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every(([, reason]) => reason === 'maxPages (5) reached')).toBe(true);
  });

  it('never has more than `concurrency` requests in flight', async () => {
    const s = await site({});
    const links = Array.from({ length: 12 }, (_, i) => `/docs/p${i}`);
    s.resources.set('/docs/', { body: page('Home', ...links) });
    for (const link of links) s.resources.set(link, { body: page(link) });
    s.delayMs = 20;

    const { items } = await list({ url: `${s.origin}/docs/`, concurrency: 3 });

    expect(items).toHaveLength(13);
    expect(s.maxInFlight).toBeLessThanOrEqual(3);
    expect(s.maxInFlight).toBeGreaterThan(1); // it does fetch in parallel
  });
});

describe('siteSource versions', () => {
  it('uses a strong ETag, else the SHA-256 of the body; a changed page gets a new version, an unchanged one the same', async () => {
    const s = await site({
      '/': page('Home', '/tagged', '/weak', '/plain'),
      '/tagged': { body: page('Tagged'), etag: '"v1"' },
      '/weak': { body: page('Weak'), etag: 'W/"w1"' },
      '/plain': { body: page('Plain') },
    });
    const versions = async () => new Map((await list({ url: `${s.origin}/` })).items.map((i) => [new URL(i.id).pathname, i.version]));

    const first = await versions();
    expect(first.get('/tagged')).toBe('etag:"v1"');
    expect(first.get('/weak')).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(first.get('/plain')).toMatch(/^sha256:[0-9a-f]{64}$/);

    expect(await versions()).toEqual(first);

    s.resources.set('/plain', { body: page('Plain, edited') });
    s.resources.set('/tagged', { body: page('Tagged, edited'), etag: '"v2"' });
    const second = await versions();
    expect(second.get('/plain')).not.toBe(first.get('/plain'));
    expect(second.get('/tagged')).toBe('etag:"v2"');
    expect(second.get('/weak')).toBe(first.get('/weak'));
    expect(second.get('/')).toBe(first.get('/'));
  });

  it('fetches a page again in open() when its body is beyond maxBufferedBytes', async () => {
    const s = await site({ '/': page('Home') });
    const { items } = await list({ url: `${s.origin}/`, maxBufferedBytes: 0 });
    expect(await text(items[0]!)).toContain('Home');
    expect(s.requests.filter((p) => p === '/')).toHaveLength(2);
  });
});

describe('siteSource address guard', () => {
  it('refuses a 127.0.0.1 site unless allowPrivateAddresses is set, with core typed error', async () => {
    const s = await site({ '/': page('Home') });
    const source = siteSource({ url: `${s.origin}/` });
    const listing = (async () => {
      for await (const _ of source.list()) {
        // nothing
      }
    })();
    await expect(listing).rejects.toBeInstanceOf(InvalidInputError);
    await expect(listing).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/127\.0\.0\.1.*allowPrivateNetworks/),
    });
    expect(s.requests).toEqual([]);
  });

  it('refuses a redirect to a private address: a page is skipped, a start URL fails the listing', async () => {
    const s = await site({});
    const port = new URL(s.origin).port;
    s.resources.set('/', { body: page('Home', '/to-internal', '/fine') });
    s.resources.set('/fine', { body: page('Fine') });
    s.resources.set('/to-internal', { location: `http://127.0.0.2:${port}/admin` });
    s.resources.set('/start-to-internal', { location: `http://127.0.0.2:${port}/admin` });
    // A policy that lets 127.0.0.1 through but not 127.0.0.2 stands for "public site, private target".
    const fetcher = new WebPageFetcher({ isBlocked: (a) => a === '127.0.0.2', retries: 0 });

    const { items, skipped } = await list({ url: `${s.origin}/`, fetcher, allowPrivateAddresses: false });
    expect(ids(items)).toEqual([`${s.origin}/`, `${s.origin}/fine`]);
    expect(skipped).toEqual([[`${s.origin}/to-internal`, expect.stringMatching(/127\.0\.0\.2.*allowPrivateNetworks/)]]);

    await expect(list({ url: `${s.origin}/start-to-internal`, fetcher })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/127\.0\.0\.2/),
    });
  });
});
