/** Runs tasks one at a time per key, in call order. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** True while a task of this key runs or waits. */
  isHeld(key: string): boolean {
    return this.tails.has(key);
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
