import { KmError } from '@km/core';
import type { SearchIndexInfo } from './search-index.js';

const CONNECTOR = 'mongodb';
/** How often `$listSearchIndexes` is asked while an index builds, in ms. */
export const READY_POLL_MS = 500;

/**
 * Polls until the search index reports `queryable` (a new index is built by `mongot` in the
 * background) and returns it as listed then; an index not listed yet (a concurrent creator's,
 * a moment after it was made) is waited for like one building. Throws `upstream_error` when its build failed, and a transient error naming the
 * last status when `timeoutMs` passes first.
 */
export async function waitUntilQueryable(
  read: () => Promise<SearchIndexInfo | undefined>,
  { collection, timeoutMs, pollMs = READY_POLL_MS }: { collection: string; timeoutMs: number; pollMs?: number },
): Promise<SearchIndexInfo> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await read();
    if (info?.queryable === true) return info;
    const status = info?.status ?? 'not listed';
    if (status === 'FAILED') {
      throw new KmError('upstream_error', `the search index of "${collection}" failed to build: ${info?.message ?? 'no reason given'}`, {
        connector: CONNECTOR,
      });
    }
    if (Date.now() >= deadline) {
      throw new KmError(
        'transient',
        `the search index of "${collection}" is not queryable after ${timeoutMs} ms (status ${status}); raise indexReadyTimeoutMs or retry`,
        { connector: CONNECTOR, transient: true },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pollMs, deadline - Date.now()))));
  }
}
