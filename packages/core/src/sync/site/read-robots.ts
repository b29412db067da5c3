import { KmError } from '../../errors/km-error.js';
import type { IWebPageFetcher } from '../../web/web-page-fetcher.js';
import { fetchFailure, throwIfAborted } from './fetch-failure.js';
import { ALLOW_ALL, parseRobotsTxt, type RobotsRules } from './robots-txt.js';

/**
 * The robots.txt rules of `origin` for `userAgent`: none when the site has none (a 4xx answer,
 * or a redirect loop); throws when it cannot be read (5xx, timeout, a refused address), since
 * crawling against rules one could not read is not polite.
 */
export async function readRobots(fetcher: IWebPageFetcher, origin: string, userAgent: string, signal: AbortSignal): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    const page = await fetcher.fetch(robotsUrl, signal);
    return parseRobotsTxt(page.data.toString('utf8'), robotsUrl, userAgent);
  } catch (e) {
    throwIfAborted(signal);
    if (e instanceof KmError && e.code === 'unsupported_content' && !e.transient) return ALLOW_ALL;
    throw fetchFailure(`${robotsUrl} could not be read (set respectRobots: false to crawl without it)`, e);
  }
}
