/**
 * The cursors of an index browser's pages: the one of the page shown, the ones before it (for
 * "Previous page") and the next one the service gave (for "Next page"). The first page has no cursor.
 */
export class PageCursors {
  private readonly previous: Array<string | undefined> = [];
  private currentCursor: string | undefined;
  private next: string | null = null;

  /** The cursor to list the shown page with (undefined: the first page). */
  get current(): string | undefined {
    return this.currentCursor;
  }

  /** The 1-based number of the shown page. */
  get pageNumber(): number {
    return this.previous.length + 1;
  }

  get hasNext(): boolean {
    return this.next !== null;
  }

  get hasPrevious(): boolean {
    return this.previous.length > 0;
  }

  /** Keeps the next page's cursor from the service's answer for the shown page. */
  received(nextCursor: string | null): void {
    this.next = nextCursor;
  }

  /** Moves to the next page; false when there is none. */
  forward(): boolean {
    if (this.next === null) return false;
    this.previous.push(this.currentCursor);
    this.currentCursor = this.next;
    this.next = null;
    return true;
  }

  /** Moves to the page before; false on the first page. */
  back(): boolean {
    if (this.previous.length === 0) return false;
    this.currentCursor = this.previous.pop();
    this.next = null;
    return true;
  }

  /** Back to the first page (another index or other filters). */
  reset(): void {
    this.previous.length = 0;
    this.currentCursor = undefined;
    this.next = null;
  }
}
