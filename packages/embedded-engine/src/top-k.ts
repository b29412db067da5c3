/** Orders two items of equal score: negative when `a` ranks first. */
export type TieBreak = (a: number, b: number) => number;

/**
 * Keeps the `k` highest scores seen (a binary min-heap on score, the worst kept at the root).
 *
 * With a tie-break the order is total: the heap keeps the `k` best by (score descending,
 * tie-break ascending), so the kept set and its order do not depend on the push order. A caller
 * filtering before `push` must then let a score equal to {@link threshold} through (`>=`).
 * Without one, a score equal to the lowest kept is rejected once full, and which of several
 * tied items is kept depends on the push order.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly items: Int32Array;
  private size = 0;

  /**
   * @param k most items kept.
   * @param tieBreak orders items of equal score (e.g. by record id); the lower ranks first.
   */
  constructor(
    readonly k: number,
    private readonly tieBreak?: TieBreak,
  ) {
    this.scores = new Float64Array(k);
    this.items = new Int32Array(k);
  }

  /**
   * Lowest score kept once full, -Infinity before. Without a tie-break anything not above it is
   * rejected; with one, a score equal to it is kept when its item breaks the tie first.
   */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  /** Offers `item` with `score`; kept when it ranks among the `k` best so far. */
  push(score: number, item: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, item, this.scores[parent]!, this.items[parent]!)) break;
        this.scores[i] = this.scores[parent]!;
        this.items[i] = this.items[parent]!;
        i = parent;
      }
      this.scores[i] = score;
      this.items[i] = item;
      return;
    }
    if (this.k === 0 || score < this.scores[0]! || !this.worse(this.scores[0]!, this.items[0]!, score, item)) return;
    // replace the root and sift down
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.worse(this.scores[r]!, this.items[r]!, this.scores[l]!, this.items[l]!) ? r : l;
      if (!this.worse(this.scores[c]!, this.items[c]!, score, item)) break;
      this.scores[i] = this.scores[c]!;
      this.items[i] = this.items[c]!;
      i = c;
    }
    this.scores[i] = score;
    this.items[i] = item;
  }

  /** Kept items, highest score first (ties in tie-break order when there is one). */
  sorted(): Array<[item: number, score: number]> {
    const out: Array<[number, number]> = [];
    for (let i = 0; i < this.size; i++) out.push([this.items[i]!, this.scores[i]!]);
    const tieBreak = this.tieBreak;
    return tieBreak ? out.sort((a, b) => b[1] - a[1] || tieBreak(a[0], b[0])) : out.sort((a, b) => b[1] - a[1]);
  }

  /** Whether (sa, ia) ranks strictly below (sb, ib). */
  private worse(sa: number, ia: number, sb: number, ib: number): boolean {
    if (sa !== sb) return sa < sb;
    return this.tieBreak !== undefined && this.tieBreak(ia, ib) > 0;
  }
}
