/**
 * Marks of the nodes one graph walk has seen, reset in O(1): each mark is the walk's epoch,
 * so starting a walk is one increment instead of clearing a set.
 */
export class VisitedSet {
  private stamps = new Uint32Array(0);
  private epoch = 0;

  /** Starts a new walk over node ids below `capacity`; every node is unmarked again. */
  next(capacity: number): void {
    if (this.stamps.length < capacity) {
      const grown = new Uint32Array(Math.max(capacity, this.stamps.length * 2));
      grown.set(this.stamps);
      this.stamps = grown;
    }
    this.epoch++;
    if (this.epoch === 0xffffffff) {
      this.stamps.fill(0);
      this.epoch = 1;
    }
  }

  /** Marks a node; false when the current walk had already marked it. */
  visit(node: number): boolean {
    if (this.stamps[node] === this.epoch) return false;
    this.stamps[node] = this.epoch;
    return true;
  }
}
