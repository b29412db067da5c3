import { Parser } from 'htmlparser2';
import { MimeTypes } from '../models/constants.js';
import { TextFormatDecoder } from './text-format-decoder.js';

const SKIPPED = new Set(['title', 'script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object']);
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
 * cells are separated by ` | `; scripts, styles and the head are dropped. The title, when
 * present, becomes the first heading.
 */
export class HtmlDecoder extends TextFormatDecoder {
  constructor() {
    super({
      name: 'html',
      reads: (type) => type === MimeTypes.html || type === 'application/xhtml+xml',
      gives: MimeTypes.markdown,
      convert: htmlToMarkdown,
    });
  }
}

/** Converts HTML to markdown-flavoured text (see {@link HtmlDecoder}). */
export function htmlToMarkdown(html: string): string {
  const lines: string[] = [];
  let line = '';
  let skipDepth = 0;
  let inTitle = false;
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
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIPPED.has(name)) {
          skipDepth++;
          return;
        }
        if (skipDepth) return;
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
      },
      ontext(text) {
        if (inTitle) title += text;
        if (skipDepth) return;
        line += inPre ? text : text.replace(/\s+/g, ' ');
        if (inPre && line.includes('\n')) {
          const parts = line.split('\n');
          line = parts.pop() ?? '';
          lines.push(...parts);
        }
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIPPED.has(name)) {
          skipDepth = Math.max(0, skipDepth - 1);
          return;
        }
        if (skipDepth) return;
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
