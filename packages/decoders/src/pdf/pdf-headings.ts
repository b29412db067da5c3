import type { PdfLine } from './pdf-lines.js';

/** A heading's font is at least this many times the body text's. */
const HEADING_SCALE = 1.2;
/** Most characters in a heading line. */
const MAX_HEADING_CHARS = 100;
/** Heading levels used: the largest heading font gives `#`, the next `##`, the rest `###`. */
const LEVELS = 3;

/** The font size most characters of the document are in. */
function bodySize(pages: readonly PdfLine[][]): number {
  const chars = new Map<number, number>();
  for (const lines of pages) for (const line of lines) chars.set(line.size, (chars.get(line.size) ?? 0) + line.text.length);
  return [...chars].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [0, -1] as [number, number])[0];
}

const looksLikeHeading = (line: PdfLine, body: number): boolean =>
  body > 0 &&
  line.size >= body * HEADING_SCALE &&
  line.text.length <= MAX_HEADING_CHARS &&
  !/[.,;]$/.test(line.text) &&
  /\p{L}/u.test(line.text);

/**
 * The text of each page, with the lines that look like headings (a font clearly larger than the
 * body text's, short, not ending like a sentence, with a letter) as markdown headings in a
 * paragraph of their own: `#` for the largest heading font of the document, `##` for the next,
 * `###` for smaller ones. A heading cut over consecutive lines of one size is one heading.
 */
export function pagesAsMarkdown(pages: readonly PdfLine[][]): string[] {
  const body = bodySize(pages);
  const sizes = [...new Set(pages.flatMap((lines) => lines.filter((l) => looksLikeHeading(l, body)).map((l) => l.size)))].sort(
    (a, b) => b - a,
  );
  const levelOf = (size: number) => Math.min(sizes.indexOf(size) + 1, LEVELS);
  return pages.map((lines) => {
    const blocks: string[] = [];
    let paragraph: string[] = [];
    let heading: { size: number; text: string } | undefined;
    const end = (): void => {
      if (heading) blocks.push(`${'#'.repeat(levelOf(heading.size))} ${heading.text}`);
      if (paragraph.length) blocks.push(paragraph.join('\n'));
      heading = undefined;
      paragraph = [];
    };
    for (const line of lines) {
      if (!looksLikeHeading(line, body)) {
        if (heading) end();
        paragraph.push(line.text);
      } else if (heading?.size === line.size) heading.text += ` ${line.text}`;
      else {
        end();
        heading = { size: line.size, text: line.text };
      }
    }
    end();
    return blocks.join('\n\n');
  });
}
