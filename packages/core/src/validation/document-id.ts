import { InvalidInputError } from '../errors/km-error.js';

/** Longest document id accepted. */
export const MAX_DOCUMENT_ID_LENGTH = 256;

const VALID = /^[A-Za-z0-9._-]+$/;

/**
 * Checks a document id: letters, digits, `.`, `_` and `-` only, not `.`, no `..`, at most 256 characters.
 * Returns the id unchanged; throws `invalid_document_id` otherwise.
 */
export function validateDocumentId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidInputError('invalid_document_id', 'document id must be a non-empty string');
  }
  if (id.length > MAX_DOCUMENT_ID_LENGTH) {
    throw new InvalidInputError('invalid_document_id', `document id is longer than ${MAX_DOCUMENT_ID_LENGTH} characters`);
  }
  if (!VALID.test(id)) {
    throw new InvalidInputError(
      'invalid_document_id',
      `document id ${JSON.stringify(id)} is invalid: use letters, digits, '.', '_' and '-' only`,
    );
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
