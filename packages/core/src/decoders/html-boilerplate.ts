/** Elements whose content is never indexed: code, styles, the head, embedded objects. */
const NOT_TEXT = new Set(['title', 'script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object']);
/** Page furniture: navigation, side content and forms, wherever they are. */
const FURNITURE = new Set(['nav', 'aside', 'form']);
/** Elements that are furniture when they belong to the page, not to a `main` or an `article`. */
const PAGE_FURNITURE = new Set(['header', 'footer']);
/** Elements whose content is the page's own. */
export const CONTENT_ELEMENTS = new Set(['main', 'article']);

/**
 * True when an element and all it holds are left out of the text: scripts, styles, the head
 * and the like; `nav`, `aside`, `form` and `role="navigation"`; and `header`/`footer` outside a
 * `main` or `article` (`insideContent`), the page's own banner and footer.
 */
export function isBoilerplate(name: string, attributes: Record<string, string>, insideContent: boolean): boolean {
  return NOT_TEXT.has(name) || FURNITURE.has(name) || attributes.role === 'navigation' || (PAGE_FURNITURE.has(name) && !insideContent);
}

/** Blocks whose text may be a list of links. */
export const LINK_LIST_CANDIDATES = new Set(['ul', 'ol', 'dl', 'menu', 'div', 'section', 'p', 'table']);
/** Share of a block's characters inside links from which it is a link list. */
export const LINK_TEXT_SHARE = 0.7;
/** More links than this in a block can make it a link list. */
export const MIN_LINKS = 3;

/** The text of one block, counted to tell a list of links (a menu, a "related" list, a tag cloud) from content. */
export class LinkDensity {
  private chars = 0;
  private linkChars = 0;
  private links = 0;

  /** @param start where the block's lines start in the output, to cut them off */
  constructor(readonly start: number) {}

  /** Counts text (whitespace aside), inside a link or not. */
  addText(text: string, inLink: boolean): void {
    const length = text.replace(/\s+/g, '').length;
    this.chars += length;
    if (inLink) this.linkChars += length;
  }

  addLink(): void {
    this.links++;
  }

  /** More than {@link MIN_LINKS} links holding at least {@link LINK_TEXT_SHARE} of the characters. */
  isLinkList(): boolean {
    return this.links > MIN_LINKS && this.linkChars >= LINK_TEXT_SHARE * this.chars;
  }
}
