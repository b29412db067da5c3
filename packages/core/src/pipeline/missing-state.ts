import type { IContentStorage } from '../contracts/content-storage.js';

/** Deliveries of one step's pointer that may find no saved state before the step gives up on it. */
export const MISSING_STATE_ATTEMPTS = 3;
/** Pointers remembered at once; the oldest is forgotten past this (bounded memory). */
const MAX_TRACKED = 10_000;

/**
 * Counts, per pointer, the deliveries that found no pipeline state. A pointer whose state is
 * missing is either stale (its document was deleted) or the sign of a misconfiguration (this
 * process does not see the content storage of the process that imported the document): it is
 * retried a few times, then given up on loudly instead of being dropped in silence.
 */
export class MissingStateTracker {
  private readonly misses = new Map<string, number>();

  /** Counts one more miss of `key` and returns how many there were; forgets it once it reaches the limit. */
  miss(key: string): number {
    const count = (this.misses.get(key) ?? 0) + 1;
    this.misses.delete(key);
    if (count >= MISSING_STATE_ATTEMPTS) return count;
    this.misses.set(key, count);
    if (this.misses.size > MAX_TRACKED) this.misses.delete(this.misses.keys().next().value!);
    return count;
  }

  /** Forgets `key` (its state was found after all). */
  found(key: string): void {
    this.misses.delete(key);
  }
}

/** A storage as named in logs and errors: its class, and where its files live when it says. */
export function contentStorageLabel(storage: IContentStorage): string {
  return `${storage.constructor.name}${storage.location ? ` at ${storage.location}` : ''}`;
}
