import { InvalidInputError } from '../errors/km-error.js';
import { DEFAULT_INDEX } from '../models/constants.js';

/** Longest index name accepted after normalisation. */
export const MAX_INDEX_NAME_LENGTH = 128;

const SEPARATORS = /[\s\\/._:]/g;
const VALID = /^[a-z0-9-]+$/;

/**
 * Normalises an index name the same way everywhere: trimmed, empty means `default`,
 * lower-case, whitespace and `\ / . _ :` become `-`. Any other character is refused.
 *
 * ```ts
 * normalizeIndexName(' My_Docs ') // 'my-docs'
 * ```
 */
export function normalizeIndexName(index: string | null | undefined): string {
  if (index !== null && index !== undefined && typeof index !== 'string') {
    throw new InvalidInputError('invalid_index_name', `index name must be a string, got ${typeof index}`);
  }
  const trimmed = (index ?? '').trim();
  if (trimmed === '') return DEFAULT_INDEX;
  const normalized = trimmed.toLowerCase().replace(SEPARATORS, '-');
  if (normalized.length > MAX_INDEX_NAME_LENGTH) {
    throw new InvalidInputError(
      'invalid_index_name',
      `index name "${trimmed.slice(0, 40)}..." is longer than ${MAX_INDEX_NAME_LENGTH} characters`,
    );
  }
  if (!VALID.test(normalized) || !/[a-z0-9]/.test(normalized)) {
    throw new InvalidInputError(
      'invalid_index_name',
      `index name ${JSON.stringify(trimmed)} is invalid: use letters, digits, spaces and - \\ / . _ :`,
    );
  }
  return normalized;
}

/** True when `name` is already a normalised index name (e.g. a folder or table found on disk). */
export function isNormalizedIndexName(name: string): boolean {
  try {
    return normalizeIndexName(name) === name;
  } catch {
    return false;
  }
}

/**
 * The km index names among backend names (collections, tables, indexes) that carry `prefix`:
 * the prefix removed, only normalised names kept, sorted. For connectors' `getIndexes`.
 */
export function indexNamesUnderPrefix(names: Iterable<string>, prefix: string): string[] {
  const found = new Set<string>();
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const candidate = name.slice(prefix.length);
    if (isNormalizedIndexName(candidate)) found.add(candidate);
  }
  return [...found].sort();
}
