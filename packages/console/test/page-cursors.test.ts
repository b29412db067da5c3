import { describe, expect, it } from 'vitest';
import { PageCursors } from '../src/page-cursors.js';

describe('console page cursors', () => {
  it('starts on page 1 without a cursor, with no page before or after until the service gives a next cursor', () => {
    const pages = new PageCursors();
    expect([pages.current, pages.pageNumber, pages.hasPrevious, pages.hasNext]).toEqual([undefined, 1, false, false]);
    expect(pages.forward()).toBe(false);
    expect(pages.back()).toBe(false);
    pages.received('c2');
    expect(pages.hasNext).toBe(true);
  });

  it('goes forward with the cursors the service gave and back to the cursors of the pages before', () => {
    const pages = new PageCursors();
    pages.received('c2');
    expect(pages.forward()).toBe(true);
    expect([pages.current, pages.pageNumber, pages.hasPrevious, pages.hasNext]).toEqual(['c2', 2, true, false]);
    pages.received('c3');
    pages.forward();
    pages.received(null);
    expect([pages.current, pages.pageNumber, pages.hasNext]).toEqual(['c3', 3, false]);
    expect(pages.back()).toBe(true);
    expect([pages.current, pages.pageNumber]).toEqual(['c2', 2]);
    pages.back();
    expect([pages.current, pages.pageNumber, pages.hasPrevious]).toEqual([undefined, 1, false]);
  });

  it('returns to the first page on reset', () => {
    const pages = new PageCursors();
    pages.received('c2');
    pages.forward();
    pages.reset();
    expect([pages.current, pages.pageNumber, pages.hasPrevious, pages.hasNext]).toEqual([undefined, 1, false, false]);
  });
});
