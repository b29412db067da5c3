import { describe, expect, it } from 'vitest';
import { VisitedSet } from '../src/hnsw/visited-set.js';

describe('VisitedSet', () => {
  it('marks a node once per walk and forgets the marks at the next walk', () => {
    const visited = new VisitedSet();
    visited.next(10);
    expect(visited.visit(3)).toBe(true);
    expect(visited.visit(3)).toBe(false);
    visited.next(10);
    expect(visited.visit(3)).toBe(true);
  });

  it('keeps the marks it had when it grows', () => {
    const visited = new VisitedSet();
    visited.next(4);
    visited.visit(2);
    visited.next(4);
    visited.visit(2);
    visited.next(1000); // grows; walk 3
    expect(visited.visit(2)).toBe(true);
    expect(visited.visit(999)).toBe(true);
    expect(visited.visit(999)).toBe(false);
  });

  it('does not take an old mark for a new one when its 16-bit epoch wraps', () => {
    const visited = new VisitedSet();
    visited.next(8);
    visited.visit(5); // marked in walk 1
    // 65,535 more walks bring the epoch back to 1: the marks must have been cleared.
    for (let walk = 0; walk < 0xffff; walk++) visited.next(8);
    expect(visited.visit(5)).toBe(true);
    expect(visited.visit(5)).toBe(false);
  });
});
