/**
 * The scratch lanes (a query and a scores area per segment) that in-flight worker scans of one
 * index take, one lane per scan, so concurrent scans never overwrite each other's query or
 * scores. A scan waits for a lane only when every lane is taken.
 */
export class ScanLanes {
  private readonly free: number[] = [];
  private readonly waiting: Array<(lane: number) => void> = [];

  /** Lanes `first` .. `first + count - 1`. */
  constructor(first: number, count: number) {
    for (let lane = first + count - 1; lane >= first; lane--) this.free.push(lane);
  }

  /** A free lane, as soon as there is one (first come, first served). */
  acquire(): Promise<number> {
    const lane = this.free.pop();
    if (lane !== undefined) return Promise.resolve(lane);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Gives a lane back (to the longest waiting scan, if any). */
  release(lane: number): void {
    const next = this.waiting.shift();
    if (next) next(lane);
    else this.free.push(lane);
  }
}
