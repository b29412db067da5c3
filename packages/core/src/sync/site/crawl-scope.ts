/** A URL pattern of `include` / `exclude`: see {@link CrawlScope}. */
export type UrlPattern = string | RegExp;

/**
 * The absolute form of `href` seen from `base` as a crawl compares URLs: resolved, http or
 * https only, without its fragment (`#…`) and credentials; `undefined` when it is not one.
 */
export function normalizeUrl(href: string, base?: string | URL): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  url.hash = '';
  return url.href;
}

/**
 * Which URLs a site source may fetch: the start URL's origin (scheme, host and port) and path
 * prefix, then the optional `include` / `exclude` patterns. The prefix is the start path when
 * it ends with `/`, else up to its last `/` when its last segment has an extension
 * (`/docs/index.html` → `/docs/`), else the path plus `/` (`/docs` → `/docs/`, and `/docs` itself).
 *
 * A string pattern matches the URL's path and query (`/docs/api/*`, `*.pdf`), whole, `*`
 * standing for any characters; a RegExp is tested on the whole URL. `exclude` wins over `include`.
 */
export class CrawlScope {
  readonly start: string;
  readonly origin: string;
  readonly prefix: string;
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];

  constructor(start: string, include: UrlPattern[] = [], exclude: UrlPattern[] = []) {
    const url = new URL(start);
    this.start = url.href;
    this.origin = url.origin;
    const path = url.pathname;
    const last = path.slice(path.lastIndexOf('/') + 1);
    this.prefix = path.endsWith('/') ? path : last.includes('.') ? path.slice(0, path.length - last.length) : `${path}/`;
    this.include = include.map(toRegExp);
    this.exclude = exclude.map(toRegExp);
  }

  /** True when `url` (normalised) is on the site under the prefix. */
  contains(url: string): boolean {
    const parsed = new URL(url);
    if (parsed.origin !== this.origin) return false;
    return url === this.start || parsed.pathname.startsWith(this.prefix) || `${parsed.pathname}/` === this.prefix;
  }

  /**
   * True when the patterns let `url` be fetched (`exclude` only: pages that are not listed may
   * still lead to pages that are) or listed (`exclude`, then `include`).
   */
  passesFilters(url: string, purpose: 'fetch' | 'list'): boolean {
    const parsed = new URL(url);
    const local = parsed.pathname + parsed.search;
    const test = (re: RegExp) => {
      re.lastIndex = 0; // a `g` or `y` RegExp keeps a position between tests
      return re.test(PATTERN_REGEXPS.has(re) ? local : url);
    };
    if (this.exclude.some(test)) return false;
    return purpose === 'fetch' || this.include.length === 0 || this.include.some(test);
  }
}

/** The RegExps made from string patterns (tested on path and query rather than the whole URL). */
const PATTERN_REGEXPS = new WeakSet<RegExp>();

function toRegExp(pattern: UrlPattern): RegExp {
  if (pattern instanceof RegExp) return pattern;
  const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
  PATTERN_REGEXPS.add(re);
  return re;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
