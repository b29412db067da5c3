import type { MemoryFilter } from '../models/memory-filter.js';
import { tagPairs, type TagCollection } from '../models/tag-collection.js';

function pairKey(key: string, value: string | null): string {
  return value === null ? `${key}\u0000` : `${key}\u0000\u0001${value}`;
}

/**
 * Tag → slots index. Answers a filter list with the set of matching slots, or `'all'`
 * when the list matches everything, without looking at records that cannot match.
 */
export class TagIndex {
  private readonly pairs = new Map<string, Set<number>>();
  private readonly live = new Set<number>();

  add(slot: number, tags: TagCollection): void {
    this.live.add(slot);
    for (const [key, value] of tagPairs(tags)) {
      const k = pairKey(key, value);
      let set = this.pairs.get(k);
      if (!set) this.pairs.set(k, (set = new Set()));
      set.add(slot);
    }
  }

  remove(slot: number, tags: TagCollection): void {
    this.live.delete(slot);
    for (const [key, value] of tagPairs(tags)) {
      const k = pairKey(key, value);
      const set = this.pairs.get(k);
      if (!set) continue;
      set.delete(slot);
      if (set.size === 0) this.pairs.delete(k);
    }
  }

  /** Every live slot. */
  all(): ReadonlySet<number> {
    return this.live;
  }

  /** Slots matching the filters (OR across, AND inside), or 'all'. */
  match(filters: readonly MemoryFilter[] | undefined): Set<number> | 'all' {
    if (!filters || filters.length === 0 || filters.some((f) => f.isEmpty())) return 'all';
    const result = new Set<number>();
    for (const filter of filters) {
      for (const slot of this.matchOne(filter)) result.add(slot);
    }
    return result;
  }

  private matchOne(filter: MemoryFilter): Iterable<number> {
    const positive: Set<number>[] = [];
    const negative: Set<number>[] = [];
    for (const c of filter.conditions) {
      const set = this.pairs.get(pairKey(c.key, c.value));
      if (c.negated) {
        if (set) negative.push(set);
      } else {
        if (!set) return [];
        positive.push(set);
      }
    }
    positive.sort((a, b) => a.size - b.size);
    const [smallest, ...rest] = positive;
    const base: Iterable<number> = smallest ?? this.live;
    const out: number[] = [];
    for (const slot of base) {
      if (rest.every((s) => s.has(slot)) && !negative.some((s) => s.has(slot))) out.push(slot);
    }
    return out;
  }
}
