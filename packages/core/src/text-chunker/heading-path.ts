/** A markdown ATX heading: `## Leave` is `{ level: 2, text: 'Leave' }`. */
export interface Heading {
  /** 1 to 6, the number of `#`. */
  level: number;
  text: string;
}

const ATX_HEADING = /^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;

/** The heading a markdown line is, if any: `## Leave ##` is `{ level: 2, text: 'Leave' }`. */
export function markdownHeading(line: string): Heading | undefined {
  const match = ATX_HEADING.exec(line);
  const text = match?.[2]?.trim();
  return match && text ? { level: match[1]!.length, text } : undefined;
}

/**
 * The headings a position in a markdown document lies under, outermost first. Read headings in
 * document order with {@link enter}; one document's sections (pages, sheets) share one path, so
 * a page without a heading stays under the last heading of the page before.
 */
export class HeadingPath {
  private readonly stack: Heading[] = [];

  /** Enters a heading: those of the same or a deeper level end, this one starts. */
  enter(heading: Heading): void {
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level >= heading.level) this.stack.pop();
    this.stack.push(heading);
  }

  /** The texts of the headings, outermost first. */
  texts(): string[] {
    return this.stack.map((h) => h.text);
  }
}
