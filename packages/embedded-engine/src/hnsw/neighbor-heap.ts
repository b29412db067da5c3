/**
 * A binary max-heap of (key, node) pairs on typed arrays, grown on demand. Callers that need
 * the smallest key on top push negated keys.
 */
export class NeighborHeap {
  private keys = new Float64Array(64);
  private nodes = new Int32Array(64);
  size = 0;

  clear(): void {
    this.size = 0;
  }

  /** The largest key (undefined behaviour when empty). */
  topKey(): number {
    return this.keys[0]!;
  }

  /** The node with the largest key. */
  topNode(): number {
    return this.nodes[0]!;
  }

  push(key: number, node: number): void {
    if (this.size === this.keys.length) this.grow();
    const keys = this.keys;
    const nodes = this.nodes;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! >= key) break;
      keys[i] = keys[parent]!;
      nodes[i] = nodes[parent]!;
      i = parent;
    }
    keys[i] = key;
    nodes[i] = node;
  }

  /** Removes the top pair and returns its node. */
  pop(): number {
    const keys = this.keys;
    const nodes = this.nodes;
    const top = nodes[0]!;
    const n = --this.size;
    if (n === 0) return top;
    const key = keys[n]!;
    const node = nodes[n]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && keys[r]! > keys[l]! ? r : l;
      if (keys[c]! <= key) break;
      keys[i] = keys[c]!;
      nodes[i] = nodes[c]!;
      i = c;
    }
    keys[i] = key;
    nodes[i] = node;
    return top;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    const nodes = new Int32Array(this.nodes.length * 2);
    keys.set(this.keys);
    nodes.set(this.nodes);
    this.keys = keys;
    this.nodes = nodes;
  }
}
