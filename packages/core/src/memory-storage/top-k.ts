/**
 * Keeps the `k` highest scores seen (a binary min-heap on score). Ties keep the first seen.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly items: Int32Array;
  private size = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.items = new Int32Array(k);
  }

  /** Lowest score kept once full; anything not above it is rejected. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  push(score: number, item: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.scores[parent]! <= score) break;
        this.scores[i] = this.scores[parent]!;
        this.items[i] = this.items[parent]!;
        i = parent;
      }
      this.scores[i] = score;
      this.items[i] = item;
      return;
    }
    if (score <= this.scores[0]!) return;
    // replace the root and sift down
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.scores[r]! < this.scores[l]! ? r : l;
      if (this.scores[c]! >= score) break;
      this.scores[i] = this.scores[c]!;
      this.items[i] = this.items[c]!;
      i = c;
    }
    this.scores[i] = score;
    this.items[i] = item;
  }

  /** Kept items, highest score first. */
  sorted(): Array<[item: number, score: number]> {
    const out: Array<[number, number]> = [];
    for (let i = 0; i < this.size; i++) out.push([this.items[i]!, this.scores[i]!]);
    return out.sort((a, b) => b[1] - a[1]);
  }
}
