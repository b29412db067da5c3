/** Orders two items: negative when `a` ranks before `b`, positive after, 0 when equal. */
export type Ranking<T> = (a: T, b: T) => number;

/**
 * Keeps the `limit` best items offered, by a total order (a binary heap with the worst kept
 * item at its root): O(n log limit) for n offers, never a sort of everything.
 *
 * ```ts
 * const best = new BoundedBest<number>(2, (a, b) => b - a); // highest first
 * for (const n of [5, 1, 9, 7]) best.offer(n);
 * best.sorted(); // [9, 7]
 * ```
 */
export class BoundedBest<T> {
  private readonly heap: T[] = [];

  constructor(
    readonly limit: number,
    private readonly ranking: Ranking<T>,
  ) {}

  /** Whether an item ranking like this one would be kept: fewer than `limit` kept, or it ranks before the worst kept. */
  admits(item: T): boolean {
    if (this.heap.length < this.limit) return true;
    return this.limit > 0 && this.ranking(item, this.heap[0]!) < 0;
  }

  /** Offers an item; kept when it ranks among the `limit` best so far. */
  offer(item: T): void {
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(item);
      this.siftUp(heap.length - 1);
    } else if (this.admits(item)) {
      heap[0] = item;
      this.siftDown(0);
    }
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return this.heap.slice().sort(this.ranking);
  }

  /** The heap keeps the worst item at the root: a parent ranks after (or equal to) its children. */
  private siftUp(at: number): void {
    const heap = this.heap;
    const item = heap[at]!;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (this.ranking(heap[parent]!, item) >= 0) break;
      heap[at] = heap[parent]!;
      at = parent;
    }
    heap[at] = item;
  }

  private siftDown(at: number): void {
    const heap = this.heap;
    const item = heap[at]!;
    const size = heap.length;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) break;
      const right = left + 1;
      const worse = right < size && this.ranking(heap[right]!, heap[left]!) > 0 ? right : left;
      if (this.ranking(heap[worse]!, item) <= 0) break;
      heap[at] = heap[worse]!;
      at = worse;
    }
    heap[at] = item;
  }
}
