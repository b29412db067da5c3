import type { PdfLine } from './pdf-lines.js';

/** Lines at the top, and at the bottom, of a page where running headers and footers sit. */
const EDGE_LINES = 2;
/** A line at the edge of at least this share of the pages, and of {@link MIN_PAGES}, is furniture. */
const PAGE_SHARE = 0.5;
const MIN_PAGES = 3;

/** How lines are compared: digits aside (`Page 3 of 12` is `Page 4 of 12`), case and spacing ignored. */
const key = (line: PdfLine): string => line.text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();

/** The lines of a page nearest its top and its bottom edges. */
function edges(lines: readonly PdfLine[]): Set<PdfLine> {
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  return new Set([...byHeight.slice(0, EDGE_LINES), ...byHeight.slice(-EDGE_LINES)]);
}

/**
 * Pages without their running headers and footers: a line among the two at the top or the two at
 * the bottom of at least half the pages with text (and of 3 pages at least), compared with its
 * digits replaced (so page numbers match), is removed wherever it sits at an edge. A page is
 * never emptied: when every line of it would go, it keeps them all.
 */
export function removeRepeatedLines(pages: readonly PdfLine[][]): PdfLine[][] {
  const pageEdges = pages.map(edges);
  const counts = new Map<string, number>();
  for (const lines of pageEdges) for (const k of new Set([...lines].map(key))) counts.set(k, (counts.get(k) ?? 0) + 1);
  const withText = pages.filter((lines) => lines.length > 0).length;
  const needed = Math.max(MIN_PAGES, Math.ceil(withText * PAGE_SHARE));
  return pages.map((lines, i) => {
    const kept = lines.filter((line) => !(pageEdges[i]!.has(line) && (counts.get(key(line)) ?? 0) >= needed));
    return kept.length > 0 ? kept : lines;
  });
}
