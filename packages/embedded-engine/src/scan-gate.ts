/**
 * Keeps a {@link VectorIndex}'s rows still while worker threads scan them: scans run side by side,
 * a mutation waits until no scan runs (scans that arrive meanwhile wait for it), so every scan sees
 * one consistent state of the rows. Scans on the calling thread are synchronous and need no gate.
 */
export class ScanGate {
  private scans = 0;
  /** The last waiting or running mutation; new scans start after it. */
  private writing: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  /** Scans running now. */
  get running(): number {
    return this.scans;
  }

  /** Runs `scan` once no mutation is waiting; mutations wait until it settles. */
  async read<T>(scan: () => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    this.scans++;
    try {
      return await scan();
    } finally {
      this.scans--;
      if (this.scans === 0) this.drained?.();
    }
  }

  /**
   * Runs `mutate` once no scan runs: at once (synchronously) when none does, else after the
   * running scans settle. Scans that arrive before it finished (an async `mutate` included)
   * start after it.
   */
  async write<T>(mutate: () => T | Promise<T>): Promise<T> {
    const previous = this.writing;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.writing = mine;
    try {
      if (previous) await previous;
      while (this.scans > 0) {
        await new Promise<void>((resolve) => {
          this.drained = resolve;
        });
      }
      this.drained = undefined;
      return await mutate();
    } finally {
      if (this.writing === mine) this.writing = undefined;
      done();
    }
  }
}
