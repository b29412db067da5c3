import { KmError } from '../errors/km-error.js';

/**
 * The error of a conditional write that lost: another writer changed (or created, or deleted)
 * the file since it was read. Transient: the caller reads it again and retries.
 *
 * ```ts
 * if (etag !== expected) throw writeConflict(index, documentId, fileName, 'azureblobs');
 * ```
 */
export function writeConflict(index: string, documentId: string, fileName: string, connector?: string, cause?: unknown): KmError {
  return new KmError(
    'write_conflict',
    `file "${fileName}" of document "${documentId}" in index "${index}" was changed by another writer since it was read`,
    { transient: true, ...(connector ? { connector } : {}), ...(cause !== undefined ? { cause } : {}) },
  );
}
