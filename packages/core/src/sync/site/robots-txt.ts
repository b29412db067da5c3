/** What a site's robots.txt says to one crawler. */
export interface RobotsRules {
  /** True when the crawler may fetch `url` (an absolute URL on the robots.txt's site). */
  isAllowed(url: string): boolean;
  /** The `Crawl-delay` of the crawler's group, in ms, when it gives one. */
  crawlDelayMs: number | undefined;
  /** The `Sitemap:` URLs, resolved against the robots.txt URL. */
  sitemaps: string[];
}

/** Rules that allow everything: no robots.txt, or one the crawler ignores. */
export const ALLOW_ALL: RobotsRules = { isAllowed: () => true, crawlDelayMs: undefined, sitemaps: [] };

interface Rule {
  allow: boolean;
  pattern: string;
  matcher: RegExp;
}

interface Group {
  agents: string[];
  rules: Rule[];
  crawlDelayMs: number | undefined;
}

/**
 * Parses a robots.txt (RFC 9309) for the crawler whose product token is `userAgent`'s first
 * word before `/` (`km-sync/0.1.0` → `km-sync`): the groups naming it, case-insensitively,
 * else the `*` groups; within them the longest matching `Allow`/`Disallow` pattern wins, `Allow`
 * on a tie; `*` and a final `$` work as in the RFC. `/robots.txt` itself is always allowed.
 *
 * ```ts
 * parseRobotsTxt('User-agent: *\nDisallow: /private/', 'https://site/robots.txt', 'km-sync/1').isAllowed('https://site/private/x'); // false
 * ```
 */
export function parseRobotsTxt(text: string, robotsUrl: string, userAgent: string): RobotsRules {
  const token = productToken(userAgent);
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [], crawlDelayMs: undefined };
        groups.push(current);
      }
      current.agents.push(productToken(value));
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (field === 'sitemap') {
      try {
        sitemaps.push(new URL(value, robotsUrl).href);
      } catch {
        // not a URL: ignored
      }
    } else if (!current) {
      // a rule before any User-agent line belongs to no group
    } else if (field === 'allow' || field === 'disallow') {
      if (value === '') continue; // `Disallow:` with no path allows everything
      current.rules.push({ allow: field === 'allow', pattern: value, matcher: patternRegExp(value) });
    } else if (field === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelayMs = seconds * 1000;
    }
  }
  let chosen = groups.filter((g) => g.agents.includes(token));
  if (chosen.length === 0) chosen = groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  const crawlDelayMs = chosen.find((g) => g.crawlDelayMs !== undefined)?.crawlDelayMs;
  return {
    crawlDelayMs,
    sitemaps,
    isAllowed(url: string): boolean {
      const parsed = new URL(url);
      const path = parsed.pathname + parsed.search;
      if (parsed.pathname === '/robots.txt') return true;
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!rule.matcher.test(path)) continue;
        if (
          !best ||
          rule.pattern.length > best.pattern.length ||
          (rule.pattern.length === best.pattern.length && rule.allow && !best.allow)
        ) {
          best = rule;
        }
      }
      return best ? best.allow : true;
    },
  };
}

/** `km-sync/0.1.0 (+https://…)` → `km-sync`, lower case. */
function productToken(userAgent: string): string {
  return (userAgent.trim().split(/[\s/]/)[0] ?? '').toLowerCase();
}

/** A robots.txt path pattern as a RegExp anchored at the path's start. */
function patternRegExp(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const source = body
    .split('*')
    .map((part) => normalizePercentEncoding(part).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`);
}

/** Encodes what URL paths encode (non-ASCII, spaces) so a pattern compares with `URL.pathname`. */
function normalizePercentEncoding(part: string): string {
  try {
    return encodeURI(decodeURI(part));
  } catch {
    return part;
  }
}
