import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Spaces the starts of requests to one host by at least `delayMs`, however many run at once
 * (a robots.txt `Crawl-delay`, a polite crawl).
 */
export class RequestPacer {
  private nextAt = 0;

  constructor(private readonly delayMs: number) {}

  /** Resolves when the next request may start; rejects when `signal` aborts first. */
  async wait(signal?: AbortSignal): Promise<void> {
    if (this.delayMs <= 0) return;
    const now = Date.now();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + this.delayMs;
    if (at > now) await sleep(at - now, undefined, { signal });
  }
}
