import { Parser } from 'htmlparser2';
import { normalizeUrl } from './crawl-scope.js';

/** What a crawl reads from an HTML page. */
export interface HtmlLinks {
  /** The absolute, normalised targets of its `<a href>` and `<area href>`, in order, without repeats. */
  links: string[];
  /** `<meta name="robots">` says `noindex` (or `none`): the page is not to be listed. */
  noindex: boolean;
  /** `<meta name="robots">` says `nofollow` (or `none`): its links are not to be followed. */
  nofollow: boolean;
}

/**
 * Reads the links of an HTML page, resolved against its `<base href>` or else `pageUrl`; links
 * marked `rel="nofollow"`, `download` links and non-http(s) targets (`mailto:`, `javascript:`)
 * are left out.
 *
 * ```ts
 * extractHtmlLinks('<a href="b.html#top">B</a>', 'https://site/docs/a.html').links; // ['https://site/docs/b.html']
 * ```
 */
export function extractHtmlLinks(html: string, pageUrl: string): HtmlLinks {
  let base = pageUrl;
  const hrefs: string[] = [];
  let noindex = false;
  let nofollow = false;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === 'base' && attributes.href && hrefs.length === 0) {
        base = normalizeUrl(attributes.href, pageUrl) ?? base;
      } else if ((name === 'a' || name === 'area') && attributes.href !== undefined) {
        const rel = (attributes.rel ?? '').toLowerCase().split(/\s+/);
        if (!rel.includes('nofollow') && attributes.download === undefined) hrefs.push(attributes.href);
      } else if (name === 'meta' && (attributes.name ?? '').toLowerCase() === 'robots') {
        const directives = (attributes.content ?? '').toLowerCase().split(/[\s,]+/);
        if (directives.includes('noindex') || directives.includes('none')) noindex = true;
        if (directives.includes('nofollow') || directives.includes('none')) nofollow = true;
      }
    },
  });
  parser.end(html);
  const links = new Set<string>();
  for (const href of hrefs) {
    const url = normalizeUrl(href, base);
    if (url) links.add(url);
  }
  return { links: [...links], noindex, nofollow };
}
