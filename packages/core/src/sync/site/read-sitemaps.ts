import { gunzipSync } from 'node:zlib';
import { KmError } from '../../errors/km-error.js';
import type { WebPage } from '../../web/web-page-fetcher.js';
import { normalizeUrl } from './crawl-scope.js';
import { fetchFailure, throwIfAborted } from './fetch-failure.js';
import { parseSitemapXml } from './sitemap-xml.js';

/** Most sitemap files read in one listing (index files included). */
export const MAX_SITEMAP_FILES = 1000;

/** What {@link readSitemaps} reads with. */
export interface SitemapReading {
  /** The sitemap files to start from. */
  roots: string[];
  /** Index files are followed only to sitemaps of this origin. */
  origin: string;
  fetchPage: (url: string) => Promise<WebPage>;
  onSkip: (url: string, reason: string) => void;
  signal: AbortSignal;
}

/**
 * The page URLs of sitemaps, in order (normalised, not yet filtered by scope), index files
 * followed (same origin, each once, at most {@link MAX_SITEMAP_FILES} files). Throws when a
 * sitemap file cannot be fetched or is not a valid sitemap: a listing missing part of the
 * site must not complete.
 */
export async function readSitemaps({ roots, origin, fetchPage, onSkip, signal }: SitemapReading): Promise<string[]> {
  const queue = [...new Set(roots)];
  const seen = new Set(queue);
  const pages: string[] = [];
  for (let i = 0; i < queue.length; i++) {
    if (i >= MAX_SITEMAP_FILES) {
      throw new KmError('unsupported_content', `more than ${MAX_SITEMAP_FILES} sitemap files under ${roots.join(', ')}`);
    }
    const url = queue[i]!;
    let page: WebPage;
    try {
      page = await fetchPage(url);
    } catch (e) {
      throwIfAborted(signal);
      throw fetchFailure(`sitemap ${url} could not be fetched`, e);
    }
    const file = parseSitemapXml(sitemapText(page.data, url), url);
    for (const location of file.locations) {
      const target = normalizeUrl(location, url);
      if (!target) continue;
      if (file.kind === 'urlset') {
        pages.push(target);
      } else if (new URL(target).origin !== origin) {
        onSkip(target, `a sitemap on another origin than ${origin}`);
      } else if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return pages;
}

/** A sitemap's text, gunzipped when it is gzip (`sitemap.xml.gz` served without a content encoding). */
function sitemapText(data: Buffer, url: string): string {
  if (data[0] === 0x1f && data[1] === 0x8b) {
    try {
      return gunzipSync(data, { maxOutputLength: 64 * 1024 * 1024 }).toString('utf8');
    } catch (e) {
      throw new KmError('unsupported_content', `sitemap ${url} is gzip that cannot be read: ${(e as Error).message}`, { cause: e });
    }
  }
  return data.toString('utf8');
}
