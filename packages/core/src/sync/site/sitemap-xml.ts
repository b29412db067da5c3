import { Parser } from 'htmlparser2';
import { KmError } from '../../errors/km-error.js';

/** A parsed sitemap file: page URLs (`urlset`) or further sitemaps (`sitemapindex`). */
export interface SitemapFile {
  kind: 'urlset' | 'sitemapindex';
  /** The `<loc>` of each `<url>` or `<sitemap>`, in order, as written (trimmed). */
  locations: string[];
}

/**
 * Parses a sitemap (sitemaps.org protocol): a `<urlset>` of `<url><loc>` or a `<sitemapindex>`
 * of `<sitemap><loc>`, with or without a namespace prefix. Throws `unsupported_content`,
 * naming `url` and the fault, on XML that is not well formed (an unclosed or mismatched
 * element, text outside the root) or whose root is neither element (an HTML page, say).
 *
 * ```ts
 * parseSitemapXml('<urlset><url><loc>https://site/a</loc></url></urlset>', 'https://site/sitemap.xml');
 * // { kind: 'urlset', locations: ['https://site/a'] }
 * ```
 */
export function parseSitemapXml(xml: string, url: string): SitemapFile {
  const fail = (fault: string): never => {
    throw new KmError('unsupported_content', `sitemap ${url} is not a valid sitemap: ${fault}`);
  };
  const stack: string[] = [];
  const locations: string[] = [];
  let root: string | undefined;
  let rootClosed = false;
  let fault: string | undefined;
  let loc: string | undefined;
  const parser = new Parser(
    {
      onopentag(name) {
        const local = localName(name);
        if (rootClosed) fault ??= `element <${name}> after the root element`;
        if (stack.length === 0) root ??= local;
        stack.push(local);
        if (local === 'loc' && stack.length === 3) loc = '';
      },
      ontext(text) {
        if (loc !== undefined) loc += text;
        else if (stack.length === 0 && text.trim() !== '')
          fault ??= `text outside the root element: ${JSON.stringify(text.trim().slice(0, 40))}`;
      },
      onclosetag(name, isImplied) {
        const local = localName(name);
        // A self-closing element (`<lastmod/>`) is closed "implied" too: only its text ends in `/>`.
        if (isImplied && !xml.slice(parser.startIndex, parser.endIndex + 1).endsWith('/>')) {
          fault ??= `element <${name}> is not closed`;
        }
        stack.pop();
        if (local === 'loc' && loc !== undefined) {
          const value = loc.trim();
          if (value !== '') locations.push(value);
          loc = undefined;
        }
        if (stack.length === 0) rootClosed = true;
      },
    },
    { xmlMode: true },
  );
  parser.end(xml);
  if (root === undefined) fail('it holds no XML element');
  if (fault) fail(fault);
  if (root !== 'urlset' && root !== 'sitemapindex') fail(`its root element is <${root}>, not <urlset> or <sitemapindex>`);
  return { kind: root as SitemapFile['kind'], locations };
}

/** `sm:urlset` → `urlset`, lower case. */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}
