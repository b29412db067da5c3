/**
 * Runs tasks one after another per key, in the order they were queued, and tasks of different
 * keys concurrently. A failed task does not stop the ones queued after it.
 *
 * ```ts
 * const lock = new SessionLock();
 * await Promise.all([lock.run('s1', addFirst), lock.run('s1', addSecond)]); // addSecond starts after addFirst settles
 * ```
 */
export class SessionLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
