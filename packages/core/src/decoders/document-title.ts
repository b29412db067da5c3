import { markdownHeading } from '../text-chunker/heading-path.js';

/** Most characters in a title found in a document's text. */
export const MAX_TITLE_CHARS = 100;

const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * The title of a markdown document: the `title:` of its YAML front matter, else its first
 * heading when that heading is of level 1 (`# Handbook`). Headings in code fences do not count.
 */
export function markdownTitle(text: string): string | undefined {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line));
    const match = lines
      .slice(1, end < 0 ? 0 : end)
      .map((line) => /^title:\s*(.+)$/.exec(line)?.[1])
      .find((value) => value !== undefined);
    const title = match
      ?.trim()
      .replace(/^(["'])(.*)\1$/, '$2')
      .trim();
    if (title) return title;
  }
  let fenced = false;
  for (const line of lines) {
    if (FENCE.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : markdownHeading(line);
    if (heading) return heading.level === 1 ? heading.text : undefined;
  }
  return undefined;
}

/**
 * The title of a plain-text document: its first line when that line looks like one: at most
 * {@link MAX_TITLE_CHARS} characters, with a letter, not ending in `.`, `,`, `;` or `:`, and
 * followed by a blank line and more text.
 */
export function plainTextTitle(text: string): string | undefined {
  const [first, second, ...rest] = text.trimStart().replace(/\r\n?/g, '\n').split('\n');
  const title = first?.trim() ?? '';
  if (!title || title.length > MAX_TITLE_CHARS || /[.,;:]$/.test(title) || !/\p{L}/u.test(title)) return undefined;
  return second?.trim() === '' && rest.some((line) => line.trim() !== '') ? title : undefined;
}
