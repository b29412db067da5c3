import { markdownHeading } from './heading-path.js';

/** What separates the parts of a breadcrumb. */
export const BREADCRUMB_SEPARATOR = ' › ';
/** Most characters in a breadcrumb. */
export const MAX_BREADCRUMB_CHARS = 200;

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
/** How two parts are compared: heading markers, case and spacing ignored. */
const key = (text: string): string => oneLine(markdownHeading(text)?.text ?? text).toLowerCase();

/**
 * One line naming where a chunk lies, e.g. `Employee handbook › Leave › Parental leave`. Left
 * out: empty parts, a part equal to the one before it (a title that is also the first heading),
 * and parts equal to `opening`, the chunk's first line (a chunk opening with `## Leave` does not
 * say `Leave` twice); compared without heading markers, case or spacing. Over
 * {@link MAX_BREADCRUMB_CHARS} characters, the parts after the first give way to `…`, outermost
 * first (the innermost part is kept), then the line is cut. Undefined when nothing is left to say.
 *
 * ```ts
 * breadcrumb(['Handbook', 'Leave', 'Parental leave'], '## Parental leave') // 'Handbook › Leave'
 * ```
 */
export function breadcrumb(parts: readonly string[], opening?: string): string | undefined {
  const skip = opening === undefined ? undefined : key(opening);
  const kept: string[] = [];
  for (const raw of parts) {
    const part = oneLine(raw);
    if (!part || key(part) === skip || (kept.length > 0 && key(part) === key(kept[kept.length - 1]!))) continue;
    kept.push(part);
  }
  if (kept.length === 0) return undefined;
  let line = kept.join(BREADCRUMB_SEPARATOR);
  // Keep the first part (the document) and the innermost ones; `…` stands for those dropped.
  for (let dropped = 1; line.length > MAX_BREADCRUMB_CHARS && dropped < kept.length - 1; dropped++) {
    line = [kept[0]!, '…', ...kept.slice(dropped + 1)].join(BREADCRUMB_SEPARATOR);
  }
  return line.length > MAX_BREADCRUMB_CHARS ? `${line.slice(0, MAX_BREADCRUMB_CHARS - 1).trimEnd()}…` : line;
}
