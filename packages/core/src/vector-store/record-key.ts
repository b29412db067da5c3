import { InvalidInputError } from '../errors/km-error.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';
import type { KeyValue, ResolvedKeyProperty } from './record-definition-types.js';

/** Longest string key, in UTF-8 bytes. */
export const MAX_STRING_KEY_BYTES = 512;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * Why `value` is not a key of this key property, or undefined when it is. String keys are
 * non-empty, at most 512 UTF-8 bytes, without NUL or lone surrogates; integer keys are safe
 * non-negative integers; uuid keys are canonical 8-4-4-4-12 hex.
 */
export function keyProblem(key: ResolvedKeyProperty, value: unknown): string | undefined {
  switch (key.type) {
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? undefined : 'is not a safe non-negative integer';
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? undefined : 'is not a UUID (8-4-4-4-12 hexadecimal digits)';
    default: {
      if (typeof value !== 'string') return 'is not a string';
      if (value.length === 0) return 'is empty';
      if (Buffer.byteLength(value, 'utf8') > MAX_STRING_KEY_BYTES) return `is longer than ${MAX_STRING_KEY_BYTES} UTF-8 bytes`;
      return unstorableTextReason(value);
    }
  }
}

/**
 * Checks a key and returns it as stores hold it (uuid keys lowercased); throws `invalid_argument`.
 *
 * ```ts
 * checkKey(definition.key, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'); // 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
 * ```
 */
export function checkKey(key: ResolvedKeyProperty, value: unknown): KeyValue {
  const problem = keyProblem(key, value);
  if (problem) throw new InvalidInputError('invalid_argument', `key ${key.name} ${describe(value)} ${problem}`);
  return key.type === 'uuid' ? (value as string).toLowerCase() : (value as KeyValue);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  return typeof value === 'number' ? String(value) : `(${value === null ? 'null' : typeof value})`;
}
