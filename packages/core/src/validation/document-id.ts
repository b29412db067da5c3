import { InvalidInputError } from '../errors/km-error.js';
import { MAX_DOCUMENT_ID_BYTES } from './name-limits.js';

/**
 * Longest document id accepted, in characters (ids are ASCII: the same as bytes).
 * @deprecated use {@link MAX_DOCUMENT_ID_BYTES}
 */
export const MAX_DOCUMENT_ID_LENGTH = MAX_DOCUMENT_ID_BYTES;

const VALID = /^[A-Za-z0-9._-]+$/;

/**
 * Checks a document id: letters, digits, `.`, `_` and `-` only, not `.`, no `..`, at most
 * {@link MAX_DOCUMENT_ID_BYTES} (255) bytes, the longest folder name storage holds.
 * Returns the id unchanged; throws `invalid_document_id` otherwise.
 */
export function validateDocumentId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidInputError('invalid_document_id', 'document id must be a non-empty string');
  }
  if (!VALID.test(id)) {
    throw new InvalidInputError(
      'invalid_document_id',
      `document id ${JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id)} is invalid: use letters, digits, '.', '_' and '-' only`,
    );
  }
  // The id is ASCII here, so its length is its size in bytes.
  if (id.length > MAX_DOCUMENT_ID_BYTES) {
    throw new InvalidInputError('invalid_document_id', `document id is ${id.length} bytes, over the limit of ${MAX_DOCUMENT_ID_BYTES}`);
  }
  if (id.includes('..') || id === '.') {
    throw new InvalidInputError('invalid_document_id', `document id ${JSON.stringify(id)} may not be '.' or contain '..'`);
  }
  return id;
}

/** A new random document id, as Kernel Memory makes when the caller gives none. */
export function newDocumentId(): string {
  return crypto.randomUUID().replaceAll('-', '') + new Date().toISOString().replace(/\D/g, '').slice(0, 14);
}
