import type { MemoryRecord } from '../models/memory-record.js';

/** Orders record ids by UTF-16 code units, as km connectors list them. */
export function compareRecordIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts similarity results most relevant first, ties by id, in place; for connectors. */
export function rankResults(results: Array<[MemoryRecord, number]>): Array<[MemoryRecord, number]> {
  return results.sort((a, b) => b[1] - a[1] || compareRecordIds(a[0].id, b[0].id));
}
