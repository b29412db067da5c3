import { createHash } from 'node:crypto';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { cloneTags, type TagCollection } from '../models/tag-collection.js';
import { KM_CORE_VERSION } from '../tracing/tracer.js';
import { type IWebPageFetcher, type WebPage, WebPageFetcher } from '../web/web-page-fetcher.js';
import { CrawlFrontier } from './site/crawl-frontier.js';
import { CrawlScope, normalizeUrl, type UrlPattern } from './site/crawl-scope.js';
import { extractHtmlLinks } from './site/html-links.js';
import { RequestPacer } from './site/request-pacer.js';
import { fetchFailure, reasonOf, throwIfAborted } from './site/fetch-failure.js';
import { readRobots } from './site/read-robots.js';
import { readSitemaps } from './site/read-sitemaps.js';
import { ALLOW_ALL, type RobotsRules } from './site/robots-txt.js';
import { siteFileName } from './site/site-file-name.js';
import type { SyncItem, SyncSource } from './sync-source.js';

/** Options of {@link siteSource}. */
export interface SiteSourceOptions {
  /**
   * The start URL (http or https). The source lists only pages of its origin under its path
   * prefix (see `CrawlScope`: `https://site/docs/` → pages under `/docs/`), and names itself
   * after it unless `id` is given.
   */
  url: string;
  /**
   * Where the list of pages comes from. A URL: that sitemap. `true`: the `Sitemap:` lines of
   * the site's robots.txt, else `<origin>/sitemap.xml`. Sitemap index files are followed (same
   * origin only). Absent or `false`: a breadth-first crawl of the `<a href>` links from `url`.
   * @default false
   */
  sitemap?: string | boolean;
  /** Most pages fetched (listed or skipped) in one listing; at most 10,000. @default 500 */
  maxPages?: number;
  /** Pages fetched at once; at most 16. @default 2 */
  concurrency?: number;
  /**
   * Least time between the starts of two requests to the site, in ms. @default the robots.txt
   * `Crawl-delay` for this crawler, capped at 10 s, else 0
   */
  delayMs?: number;
  /** Sent as `User-Agent`; its product token (`km-sync`) picks the robots.txt group. @default `km-sync/<core version>` */
  userAgent?: string;
  /** Obey robots.txt (`Disallow`, `Allow`, `Crawl-delay`) and `<meta name="robots">` `noindex`/`nofollow`. @default true */
  respectRobots?: boolean;
  /** Largest page accepted, in bytes; a larger one is skipped. @default 10 MiB */
  maxPageBytes?: number;
  /**
   * Bytes of page bodies kept in memory between the listing and `open()`, over all pages of a
   * listing; pages beyond it are fetched again when opened. @default 64 MiB
   */
  maxBufferedBytes?: number;
  /** Only pages matching one of these are listed (others in scope are still crawled for links). See `CrawlScope`. */
  include?: UrlPattern[];
  /** Pages matching one of these are neither fetched nor listed. See `CrawlScope`. */
  exclude?: UrlPattern[];
  /**
   * Let the source reach loopback, private, link-local and metadata addresses (a site on your
   * own network). Off by default: core's web fetcher refuses them, after DNS resolution and on
   * every redirect. @default false
   */
  allowPrivateAddresses?: boolean;
  /**
   * The fetcher to use instead of a `WebPageFetcher` made from `maxPageBytes`, `userAgent` and
   * `allowPrivateAddresses` (those three are then the fetcher's business).
   */
  fetcher?: IWebPageFetcher;
  /** Source id. @default the start URL, normalised */
  id?: string;
  /** Tags of every page's document (besides `url`, which each page gets). */
  tags?: TagCollection;
  /** Called for each page left out of the listing, with the reason (a 404, robots.txt, a type that is not a page, maxPages). Must not throw. */
  onSkip?: (url: string, reason: string) => void;
  /** Stops every listing and open of this source. */
  signal?: AbortSignal;
}

/** Most pages a listing may fetch, whatever `maxPages` says. */
export const SITE_MAX_PAGES_LIMIT = 10_000;
/** Longest robots.txt `Crawl-delay` honoured, in ms (an explicit `delayMs` is not capped). */
const MAX_CRAWL_DELAY_MS = 10_000;
/** Content types listed: pages the pipeline decodes. Others (images, archives, scripts) are skipped. */
const PAGE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'application/pdf']);

/**
 * A sync source of a web site (kind `web`): its pages from a sitemap, or by crawling links from
 * a start URL under its path prefix, through core's `WebPageFetcher` (so its SSRF guard, size
 * and time limits), obeying robots.txt, fetching at most `maxPages` pages, `concurrency` at a
 * time. Every page is fetched during the listing; its version is its strong `ETag`, else the
 * SHA-256 of its body; its body is kept for `open()` up to `maxBufferedBytes`, else fetched again.
 *
 * A page that fails (404, timeout, too large, refused by robots.txt, not a page type) is left
 * out of the listing and reported to `onSkip` (so a sync deletes its document); a start URL,
 * robots.txt (other than a 4xx: no rules) or sitemap that cannot be read makes the listing
 * throw, so the sync deletes nothing.
 *
 * ```ts
 * const report = await memory.sync(siteSource({ url: 'https://example.com/docs/', sitemap: true, maxPages: 200 }));
 * ```
 */
export function siteSource(options: SiteSourceOptions): SyncSource {
  return new SiteSource(options);
}

class SiteSource implements SyncSource {
  readonly id: string;
  readonly kind = 'web';
  private readonly scope: CrawlScope;
  private readonly fetcher: IWebPageFetcher;
  private readonly userAgent: string;
  private readonly maxPages: number;
  private readonly concurrency: number;
  private readonly maxBufferedBytes: number;

  constructor(private readonly options: SiteSourceOptions) {
    const start = typeof options.url === 'string' ? normalizeUrl(options.url) : undefined;
    if (!start) {
      throw new InvalidInputError('invalid_argument', `siteSource: url ${JSON.stringify(options.url)} is not an http or https URL`);
    }
    this.scope = new CrawlScope(start, options.include, options.exclude);
    this.id = options.id ?? start;
    this.maxPages = boundedInteger('maxPages', options.maxPages, 500, 1, SITE_MAX_PAGES_LIMIT);
    this.concurrency = boundedInteger('concurrency', options.concurrency, 2, 1, 16);
    this.maxBufferedBytes = options.maxBufferedBytes ?? 64 * 1024 * 1024;
    this.userAgent = options.userAgent ?? `km-sync/${KM_CORE_VERSION}`;
    this.fetcher =
      options.fetcher ??
      new WebPageFetcher({
        maxBytes: options.maxPageBytes,
        userAgent: this.userAgent,
        allowPrivateNetworks: options.allowPrivateAddresses ?? false,
      });
    if (options.delayMs !== undefined && !(options.delayMs >= 0)) {
      throw new InvalidInputError('invalid_argument', `siteSource: delayMs must be 0 or more, got ${options.delayMs}`);
    }
  }

  async *list(signal?: AbortSignal): AsyncIterable<SyncItem> {
    // Stops this listing's fetches when the caller stops reading it, too.
    const stop = new AbortController();
    const aborted = AbortSignal.any([stop.signal, ...[signal, this.options.signal].filter((s) => s !== undefined)]);
    try {
      yield* this.listPages(aborted);
    } finally {
      stop.abort();
    }
  }

  private async *listPages(signal: AbortSignal): AsyncIterable<SyncItem> {
    const { scope } = this;
    const respectRobots = this.options.respectRobots ?? true;
    const robots = respectRobots ? await readRobots(this.fetcher, scope.origin, this.userAgent, signal) : ALLOW_ALL;
    const crawlDelay = robots.crawlDelayMs === undefined ? 0 : Math.min(robots.crawlDelayMs, MAX_CRAWL_DELAY_MS);
    const pacer = new RequestPacer(this.options.delayMs ?? crawlDelay);
    const fetchPage = async (url: string): Promise<WebPage> => {
      await pacer.wait(signal);
      return this.fetcher.fetch(url, signal);
    };

    const crawling = !this.options.sitemap;
    const frontier = new CrawlFrontier();
    if (crawling) {
      if (!robots.isAllowed(scope.start)) {
        throw new KmError('unsupported_content', `${scope.start}: robots.txt disallows the start URL for ${this.userAgent}`);
      }
      frontier.add(scope.start);
    } else {
      for (const url of await readSitemaps({
        roots: this.sitemapRoots(robots),
        origin: scope.origin,
        fetchPage,
        onSkip: (url, reason) => this.skip(url, reason),
        signal,
      })) {
        if (scope.contains(url)) frontier.add(url);
      }
    }

    const listed = new Set<string>();
    let buffered = 0;
    let fetches = 0;
    const inFlight = new Map<string, Promise<{ url: string; page?: WebPage; error?: unknown }>>();
    for (;;) {
      throwIfAborted(signal);
      while (inFlight.size < this.concurrency && frontier.size > 0 && fetches < this.maxPages) {
        const url = frontier.next()!;
        if (!scope.passesFilters(url, 'fetch') && url !== scope.start) continue;
        if (!robots.isAllowed(url)) {
          this.skip(url, 'disallowed by robots.txt');
          continue;
        }
        fetches++;
        const outcome = fetchPage(url).then(
          (page) => ({ url, page }),
          (error: unknown) => ({ url, error }),
        );
        inFlight.set(url, outcome);
      }
      if (inFlight.size === 0) break;
      const { url, page, error } = await Promise.race(inFlight.values());
      inFlight.delete(url);
      throwIfAborted(signal);
      if (!page) {
        if (crawling && url === scope.start) throw fetchFailure(`the start URL ${url} could not be fetched`, error);
        this.skip(url, reasonOf(error));
        continue;
      }
      const finalUrl = normalizeUrl(page.url) ?? url;
      if (finalUrl !== url) {
        frontier.markSeen(finalUrl);
        if (!scope.contains(finalUrl)) {
          if (crawling && url === scope.start) {
            throw new KmError(
              'unsupported_content',
              `the start URL ${url} redirects to ${finalUrl}, outside ${scope.origin}${scope.prefix}`,
            );
          }
          this.skip(url, `redirects to ${finalUrl}, outside ${scope.origin}${scope.prefix}`);
          continue;
        }
        if (!robots.isAllowed(finalUrl)) {
          this.skip(url, `redirects to ${finalUrl}, which robots.txt disallows`);
          continue;
        }
      }
      let noindex = false;
      if (isHtml(page.mimeType)) {
        const html = extractHtmlLinks(page.data.toString('utf8'), finalUrl);
        noindex = respectRobots && html.noindex;
        if (crawling && !(respectRobots && html.nofollow)) {
          for (const link of html.links) if (scope.contains(link)) frontier.add(link);
        }
      }
      if (!PAGE_TYPES.has(page.mimeType)) {
        if (crawling && url === scope.start) {
          throw new KmError('unsupported_content', `the start URL ${url} is ${page.mimeType}, not a page (html, text, markdown, pdf)`);
        }
        this.skip(url, `its content type ${page.mimeType} is not a page type (html, text, markdown, pdf)`);
        continue;
      }
      if (noindex) {
        this.skip(url, 'its <meta name="robots"> says noindex');
        continue;
      }
      if (!scope.passesFilters(finalUrl, 'list')) continue;
      if (listed.has(finalUrl)) {
        if (finalUrl !== url) this.skip(url, `redirects to ${finalUrl}, listed already`);
        continue;
      }
      listed.add(finalUrl);
      buffered += page.data.length;
      yield this.item(finalUrl, page, buffered <= this.maxBufferedBytes, pacer);
    }
    for (const url of frontier.drain()) this.skip(url, `maxPages (${this.maxPages}) reached`);
  }

  /** The item of a fetched page; its body is kept when `keepBody`, else fetched again by `open()` (paced as the listing). */
  private item(url: string, page: WebPage, keepBody: boolean, pacer: RequestPacer): SyncItem {
    const strongEtag = page.etag && !page.etag.startsWith('W/') ? page.etag : undefined;
    const version = strongEtag ? `etag:${strongEtag}` : `sha256:${createHash('sha256').update(page.data).digest('hex')}`;
    const body = keepBody ? page.data : undefined;
    const tags: TagCollection = { ...cloneTags(this.options.tags), url: [url] };
    return {
      id: url,
      version,
      fileName: siteFileName(url, page.mimeType),
      mimeType: page.mimeType,
      tags,
      open: async (signal?: AbortSignal) => {
        if (body) return body;
        const signals = [signal, this.options.signal].filter((s) => s !== undefined);
        const combined = signals.length ? AbortSignal.any(signals) : undefined;
        await pacer.wait(combined);
        return (await this.fetcher.fetch(url, combined)).data;
      },
    };
  }

  /** The sitemap files a listing starts from. */
  private sitemapRoots(robots: RobotsRules): string[] {
    const { sitemap } = this.options;
    const { origin, start } = this.scope;
    if (typeof sitemap === 'string') {
      const url = normalizeUrl(sitemap, start);
      if (!url)
        throw new InvalidInputError('invalid_argument', `siteSource: sitemap ${JSON.stringify(sitemap)} is not an http or https URL`);
      return [url];
    }
    const declared = robots.sitemaps.filter((url) => new URL(url).origin === origin);
    return declared.length > 0 ? declared : [`${origin}/sitemap.xml`];
  }

  private skip(url: string, reason: string): void {
    this.options.onSkip?.(url, reason);
  }
}

function isHtml(mimeType: string): boolean {
  return mimeType === 'text/html' || mimeType === 'application/xhtml+xml';
}

function boundedInteger(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError('invalid_argument', `siteSource: ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}
