import { InvalidInputError } from '../errors/km-error.js';

/**
 * The cursor of a document listing: the last document id the previous page read, opaque to
 * callers (base64url JSON, so that its shape can grow without breaking old cursors).
 */
export function encodeDocumentCursor(after: string): string {
  return Buffer.from(JSON.stringify({ a: after }), 'utf8').toString('base64url');
}

/** The document id a cursor continues after; `invalid_argument` when it is not one of ours. */
export function decodeDocumentCursor(cursor: string): string {
  const invalid = () =>
    new InvalidInputError('invalid_argument', `cursor ${JSON.stringify(cursor.slice(0, 80))} is not a cursor of this listing`);
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const after = (parsed as { a?: unknown } | null)?.a;
  // Any folder name a storage may list (a listing steps over folders that are not km documents).
  if (typeof after !== 'string' || after === '' || after.length > 255 || after === '.' || after === '..' || /[/\\\0-\x1f]/.test(after)) {
    throw invalid();
  }
  return after;
}
