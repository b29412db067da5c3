import { describe, expect, it } from 'vitest';
import { CrawlScope } from '../src/sync/site/crawl-scope.js';
import { extractHtmlLinks } from '../src/sync/site/html-links.js';
import { parseRobotsTxt } from '../src/sync/site/robots-txt.js';
import { siteFileName } from '../src/sync/site/site-file-name.js';
import { parseSitemapXml } from '../src/sync/site/sitemap-xml.js';

const ROBOTS_URL = 'https://site.example/robots.txt';

describe('parseRobotsTxt', () => {
  it('takes the longest matching rule, Allow on a tie, with * and $ patterns', () => {
    const robots = parseRobotsTxt(
      ['User-agent: *', 'Disallow: /docs/', 'Allow: /docs/public', 'Disallow: /*.pdf$', 'Allow: /same', 'Disallow: /same'].join('\n'),
      ROBOTS_URL,
      'km-sync/1.0',
    );
    const allowed = (path: string) => robots.isAllowed(`https://site.example${path}`);
    expect(allowed('/docs/secret')).toBe(false);
    expect(allowed('/docs/public/page')).toBe(true);
    expect(allowed('/files/a.pdf')).toBe(false);
    expect(allowed('/files/a.pdf?x=1')).toBe(true);
    expect(allowed('/same')).toBe(true);
    expect(allowed('/elsewhere')).toBe(true);
    expect(allowed('/robots.txt')).toBe(true);
  });

  it('uses the groups naming its product token (case-insensitive, consecutive agents share a group), else *', () => {
    const text = [
      'Sitemap: /sitemap-a.xml',
      'User-agent: *',
      'Disallow: /',
      '',
      'User-agent: other-bot',
      'User-agent: KM-Sync',
      'Crawl-delay: 2.5',
      'Disallow: /private # comment',
    ].join('\r\n');
    const ours = parseRobotsTxt(text, ROBOTS_URL, 'km-sync/0.1.0');
    expect(ours.isAllowed('https://site.example/page')).toBe(true);
    expect(ours.isAllowed('https://site.example/private/x')).toBe(false);
    expect(ours.crawlDelayMs).toBe(2500);
    expect(ours.sitemaps).toEqual(['https://site.example/sitemap-a.xml']);
    const stranger = parseRobotsTxt(text, ROBOTS_URL, 'another/2');
    expect(stranger.isAllowed('https://site.example/page')).toBe(false);
    expect(stranger.crawlDelayMs).toBeUndefined();
  });

  it('an empty Disallow allows everything', () => {
    expect(parseRobotsTxt('User-agent: *\nDisallow:\n', ROBOTS_URL, 'km-sync').isAllowed('https://site.example/a')).toBe(true);
  });
});

describe('parseSitemapXml', () => {
  it('reads urlset and sitemapindex locations, namespaced or not, entities decoded', () => {
    expect(
      parseSitemapXml(
        '<?xml version="1.0"?>\n<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc> https://s/a?x=1&amp;y=2 </sm:loc><sm:lastmod>2026-01-01</sm:lastmod></sm:url></sm:urlset>',
        'https://s/sitemap.xml',
      ),
    ).toEqual({ kind: 'urlset', locations: ['https://s/a?x=1&y=2'] });
    expect(parseSitemapXml('<sitemapindex><sitemap><loc>https://s/b.xml</loc></sitemap></sitemapindex>', 'u')).toEqual({
      kind: 'sitemapindex',
      locations: ['https://s/b.xml'],
    });
  });

  it('accepts self-closing elements', () => {
    expect(parseSitemapXml('<urlset><url><loc>https://s/a</loc><lastmod/></url><url/></urlset>', 'u').locations).toEqual(['https://s/a']);
  });

  it.each([
    ['', /holds no XML element/],
    ['just text', /holds no XML element/],
    ['<urlset><url><loc>a</loc></url>', /<urlset> is not closed/],
    ['<urlset><url><loc>a</url></urlset>', /<loc> is not closed/],
    ['<urlset></urlset><urlset></urlset>', /after the root element/],
    ['<rss><channel/></rss>', /root element is <rss>/],
  ])('refuses %j with a clear fault', (xml, fault) => {
    expect(() => parseSitemapXml(xml, 'https://s/sitemap.xml')).toThrow(fault);
    expect(() => parseSitemapXml(xml, 'https://s/sitemap.xml')).toThrow(/sitemap https:\/\/s\/sitemap\.xml is not a valid sitemap/);
  });
});

describe('extractHtmlLinks', () => {
  it('resolves against <base>, drops fragments, nofollow links and non-http targets, keeps order without repeats', () => {
    const html =
      '<html><head><base href="https://s/docs/"></head><body><a href="a#x">A</a><a href="a">again</a><a href="b" rel="nofollow">B</a>' +
      '<a href="mailto:x@y">mail</a><a href="javascript:void(0)">js</a><area href="/c"><a href="f.zip" download>zip</a></body></html>';
    expect(extractHtmlLinks(html, 'https://s/other/page')).toEqual({
      links: ['https://s/docs/a', 'https://s/c'],
      noindex: false,
      nofollow: false,
    });
  });

  it('reads <meta name="robots">', () => {
    expect(extractHtmlLinks('<meta name="ROBOTS" content="noindex, nofollow">', 'https://s/')).toMatchObject({
      noindex: true,
      nofollow: true,
    });
    expect(extractHtmlLinks('<meta name="robots" content="none">', 'https://s/')).toMatchObject({ noindex: true, nofollow: true });
  });
});

describe('CrawlScope', () => {
  it('keeps the origin and the path prefix of the start URL', () => {
    const folder = new CrawlScope('https://s/docs/');
    expect(folder.prefix).toBe('/docs/');
    expect(folder.contains('https://s/docs/a/b')).toBe(true);
    expect(folder.contains('https://s/docs-old/')).toBe(false);
    expect(folder.contains('http://s/docs/a')).toBe(false);
    expect(folder.contains('https://s:8443/docs/a')).toBe(false);
    expect(new CrawlScope('https://s/docs/index.html').prefix).toBe('/docs/');
    const bare = new CrawlScope('https://s/docs');
    expect(bare.prefix).toBe('/docs/');
    expect(bare.contains('https://s/docs')).toBe(true);
    expect(bare.contains('https://s/docsx')).toBe(false);
  });

  it('exclude stops fetching and listing; include only listing; strings match path and query, RegExps the URL', () => {
    const scope = new CrawlScope('https://s/', ['/api/*', /\.pdf$/], ['*/drafts/*', /[?&]print=/]);
    expect(scope.passesFilters('https://s/api/x', 'list')).toBe(true);
    expect(scope.passesFilters('https://s/files/a.pdf', 'list')).toBe(true);
    expect(scope.passesFilters('https://s/guide', 'list')).toBe(false);
    expect(scope.passesFilters('https://s/guide', 'fetch')).toBe(true);
    expect(scope.passesFilters('https://s/api/drafts/x', 'fetch')).toBe(false);
    expect(scope.passesFilters('https://s/api/x?print=1', 'list')).toBe(false);
  });
});

describe('siteFileName', () => {
  it.each([
    ['https://s/', 'text/html', 'index.html'],
    ['https://s/docs/', 'application/pdf', 'index.pdf'],
    ['https://s/docs/intro', 'text/html', 'intro.html'],
    ['https://s/docs/guide.md', 'text/markdown', 'guide.md'],
    ['https://s/docs/report.pdf?v=2', 'application/pdf', 'report.pdf'],
    ['https://s/a%20b%3Ac', 'text/plain', 'a b_c.txt'],
    ['https://s/..km.secret', 'text/html', 'km.secret.html'],
  ])('%s (%s) → %s', (url, type, name) => expect(siteFileName(url, type)).toBe(name));

  it('keeps long names within 100 bytes before the extension', () => {
    expect(Buffer.byteLength(siteFileName(`https://s/${'é'.repeat(300)}`, 'text/html'))).toBeLessThanOrEqual(105);
  });
});
