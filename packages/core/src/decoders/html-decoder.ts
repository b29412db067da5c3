import { Parser } from 'htmlparser2';
import { MimeTypes } from '../models/constants.js';
import { markdownTitle } from './document-title.js';
import { CONTENT_ELEMENTS, isBoilerplate, LINK_LIST_CANDIDATES, LinkDensity } from './html-boilerplate.js';
import { TextFormatDecoder } from './text-format-decoder.js';

const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'nav',
  'blockquote',
  'pre',
  'table',
  'tr',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'address',
  'form',
  'fieldset',
  'hr',
  'br',
]);
const HEADINGS: Record<string, string> = { h1: '#', h2: '##', h3: '###', h4: '####', h5: '#####', h6: '######' };

/**
 * HTML to markdown-flavoured text: headings become `#` lines, list items `- ` lines, table
 * cells are separated by ` | `. What an answer must not quote is left out: scripts, styles and
 * the head; navigation, asides and forms; the page's header and footer (those of a `main` or
 * an `article` stay); and lists or blocks that are mostly links (more than 3 links holding 70%
 * of the text), unless that leaves nothing. The title, when present, becomes the first heading
 * and the document's title, else a first `<h1>` is the title.
 */
export class HtmlDecoder extends TextFormatDecoder {
  constructor() {
    super({
      name: 'html',
      reads: (type) => type === MimeTypes.html || type === 'application/xhtml+xml',
      gives: MimeTypes.markdown,
      convert: htmlToMarkdown,
      title: markdownTitle,
    });
  }
}

/** Converts HTML to markdown-flavoured text (see {@link HtmlDecoder}). */
export function htmlToMarkdown(html: string): string {
  const text = convert(html, true);
  // A page that is only links (a list of bookmarks) keeps them.
  return text.replace(/^# .*\n*/, '') === '' ? convert(html, false) : text;
}

function convert(html: string, dropLinkLists: boolean): string {
  const lines: string[] = [];
  let line = '';
  /** Per open element: whether it started a skip, whether it is content, and its link count. */
  const open: Array<{ skips: boolean; content: boolean; links?: LinkDensity }> = [];
  let skipDepth = 0;
  let contentDepth = 0;
  let linkDepth = 0;
  let inTitle = false;
  let titleDone = false;
  let title = '';
  let inPre = 0;
  const listStack: Array<'ul' | 'ol'> = [];
  const counters: number[] = [];

  let indent = '';
  const flush = (): void => {
    const text = inPre ? line : line.replace(/[ \t]+/g, ' ').trim();
    if (text) lines.push(indent + text);
    line = '';
    indent = '';
  };
  const blankLine = (): void => {
    flush();
    if (lines.length && lines[lines.length - 1] !== '') lines.push('');
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'title' && !titleDone) inTitle = true;
        const skips = skipDepth === 0 && isBoilerplate(name, attributes, contentDepth > 0);
        const content = skipDepth === 0 && !skips && CONTENT_ELEMENTS.has(name);
        open.push({ skips, content });
        if (skips) skipDepth++;
        if (content) contentDepth++;
        if (skipDepth) return;
        if (name === 'a') {
          linkDepth++;
          for (const o of open) o.links?.addLink();
        }
        if (HEADINGS[name]) {
          blankLine();
          line = `${HEADINGS[name]} `;
        } else if (name === 'li') {
          flush();
          const depth = Math.max(0, listStack.length - 1);
          const kind = listStack[listStack.length - 1];
          if (kind === 'ol') counters[counters.length - 1] = (counters[counters.length - 1] ?? 0) + 1;
          indent = '  '.repeat(depth);
          line = `${kind === 'ol' ? `${counters[counters.length - 1]}.` : '-'} `;
        } else if (name === 'ul' || name === 'ol') {
          if (listStack.length === 0) blankLine();
          else flush();
          listStack.push(name);
          counters.push(0);
        } else if (name === 'td' || name === 'th') {
          if (line.trim()) line += ' | ';
        } else if (name === 'pre') {
          blankLine();
          inPre++;
        } else if (BLOCKS.has(name)) {
          if (name === 'br') flush();
          else blankLine();
        }
        if (dropLinkLists && LINK_LIST_CANDIDATES.has(name)) open[open.length - 1]!.links = new LinkDensity(lines.length);
      },
      ontext(text) {
        if (inTitle) title += text;
        if (skipDepth) return;
        for (const o of open) o.links?.addText(text, linkDepth > 0);
        line += inPre ? text : text.replace(/\s+/g, ' ');
        if (inPre && line.includes('\n')) {
          const parts = line.split('\n');
          line = parts.pop() ?? '';
          lines.push(...parts);
        }
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          titleDone = true;
        }
        const element = open.pop();
        if (element?.content) contentDepth--;
        if (element?.skips) {
          skipDepth--;
          return;
        }
        if (skipDepth) return;
        if (name === 'a') linkDepth = Math.max(0, linkDepth - 1);
        if (HEADINGS[name]) blankLine();
        else if (name === 'li') flush();
        else if (name === 'ul' || name === 'ol') {
          listStack.pop();
          counters.pop();
          if (listStack.length === 0) blankLine();
        } else if (name === 'pre') {
          flush();
          inPre = Math.max(0, inPre - 1);
          blankLine();
        } else if (name === 'tr') flush();
        else if (BLOCKS.has(name)) blankLine();
        if (element?.links?.isLinkList()) {
          flush();
          lines.length = element.links.start;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flush();
  let text = lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const cleanTitle = title.replace(/\s+/g, ' ').trim();
  if (cleanTitle && !text.startsWith('# ')) text = `# ${cleanTitle}\n\n${text}`;
  return text;
}
