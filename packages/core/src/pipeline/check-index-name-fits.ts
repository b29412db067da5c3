import type { IMemoryDb } from '../contracts/memory-db.js';
import { InvalidInputError } from '../errors/km-error.js';

/**
 * Refuses a (normalised) index name longer than any configured memory DB accepts
 * (`IMemoryDb.maxIndexNameLength`, in UTF-8 bytes), so an import fails at once with
 * `invalid_index_name` instead of after its pipeline started.
 */
export function checkIndexNameFits(index: string, memoryDbs: readonly IMemoryDb[]): void {
  const bytes = Buffer.byteLength(index, 'utf8');
  for (const db of memoryDbs) {
    const max = db.maxIndexNameLength;
    if (max !== undefined && bytes > max) {
      throw new InvalidInputError(
        'invalid_index_name',
        `index name "${index}" is ${bytes} bytes long; the ${db.name ?? 'configured'} memory DB accepts at most ${max} bytes`,
      );
    }
  }
}
