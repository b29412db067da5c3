import { setMaxListeners } from 'node:events';

/** A signal for one search or ask, tied to the caller's, and the function that unties it. */
export interface OperationSignal {
  signal: AbortSignal | undefined;
  /** Removes the one listener put on the caller's signal; call it when the operation ends. */
  release(): void;
}

/**
 * Gives one operation its own signal, aborted when the caller's is. The caller's signal gets a
 * single listener, removed by `release()`, however many listeners the memory DB and the
 * generators add below (an embedding call split over worker threads adds one per slice): a
 * caller that reuses one signal for many asks never accumulates listeners. The operation's
 * signal is dropped when it ends, so its listener count is not limited.
 */
export function operationSignal(parent: AbortSignal | undefined): OperationSignal {
  if (!parent) return { signal: undefined, release: () => {} };
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, release: () => parent.removeEventListener('abort', onAbort) };
}
