/**
 * The URLs a crawl still has to fetch, first found first fetched (breadth first), each URL at
 * most once however often it is added.
 */
export class CrawlFrontier {
  private readonly seen = new Set<string>();
  private readonly queue: string[] = [];
  private head = 0;

  /** Queues `url` unless it was queued before; true when it was new. */
  add(url: string): boolean {
    if (this.seen.has(url)) return false;
    this.seen.add(url);
    this.queue.push(url);
    return true;
  }

  /** Marks `url` as known without queueing it (a redirect's target, say). */
  markSeen(url: string): void {
    this.seen.add(url);
  }

  /** The next URL to fetch, or `undefined` when none is left. */
  next(): string | undefined {
    if (this.head >= this.queue.length) return undefined;
    const url = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return url;
  }

  /** URLs queued and not yet taken. */
  get size(): number {
    return this.queue.length - this.head;
  }

  /** Takes every URL left. */
  drain(): string[] {
    const rest = this.queue.slice(this.head);
    this.queue.length = 0;
    this.head = 0;
    return rest;
  }
}
