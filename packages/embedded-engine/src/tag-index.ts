import type { TagFilter, Tags } from './types.js';

/**
 * Tag → slots index. Answers a filter list with the set of matching slots, or `'all'`
 * when the list matches everything, without looking at records that cannot match.
 */
export class TagIndex {
  /** Key → value → slots (a two-level map: no key string built per pair). */
  private readonly pairs = new Map<string, Map<string | null, Set<number>>>();

  /**
   * @param liveSlots Every live slot (the owner's id map has them: no second set to keep up on
   * every write); a filter of only negated conditions starts from them.
   */
  constructor(private readonly liveSlots: () => Iterable<number>) {}

  add(slot: number, tags: Tags): void {
    for (const key of Object.keys(tags)) {
      let values = this.pairs.get(key);
      if (!values) this.pairs.set(key, (values = new Map()));
      for (const value of tags[key]!) {
        let set = values.get(value);
        if (!set) values.set(value, (set = new Set()));
        set.add(slot);
      }
    }
  }

  /** Adds `slots` to the pair `key`/`value` (a base file's postings). */
  addSlots(key: string, value: string | null, slots: Iterable<number>): void {
    let values = this.pairs.get(key);
    if (!values) this.pairs.set(key, (values = new Map()));
    const set = values.get(value);
    if (set) for (const slot of slots) set.add(slot);
    else values.set(value, new Set(slots));
  }

  /** Every tag pair with its slots (a view: do not change them). */
  *postings(): Iterable<[string, string | null, ReadonlySet<number>]> {
    for (const [key, values] of this.pairs) for (const [value, slots] of values) yield [key, value, slots];
  }

  remove(slot: number, tags: Tags): void {
    for (const key of Object.keys(tags)) {
      const values = this.pairs.get(key);
      if (!values) continue;
      for (const value of tags[key]!) {
        const set = values.get(value);
        if (!set) continue;
        set.delete(slot);
        if (set.size === 0) values.delete(value);
      }
      if (values.size === 0) this.pairs.delete(key);
    }
  }

  /** Slots matching the filters (OR across, AND inside), or 'all'. */
  match(filters: readonly TagFilter[] | undefined): Set<number> | 'all' {
    if (!filters || filters.length === 0 || filters.some((f) => f.conditions.length === 0)) return 'all';
    const result = new Set<number>();
    for (const filter of filters) {
      for (const slot of this.matchOne(filter)) result.add(slot);
    }
    return result;
  }

  private matchOne(filter: TagFilter): Iterable<number> {
    const positive: Set<number>[] = [];
    const negative: Set<number>[] = [];
    for (const c of filter.conditions) {
      const set = this.pairs.get(c.key)?.get(c.value);
      if (c.negated) {
        if (set) negative.push(set);
      } else {
        if (!set) return [];
        positive.push(set);
      }
    }
    positive.sort((a, b) => a.size - b.size);
    const [smallest, ...rest] = positive;
    const base: Iterable<number> = smallest ?? this.liveSlots();
    const out: number[] = [];
    for (const slot of base) {
      if (rest.every((s) => s.has(slot)) && !negative.some((s) => s.has(slot))) out.push(slot);
    }
    return out;
  }
}
