import { Transform } from 'node:stream';

/** What a `Range` header asks of a representation of `size` bytes. */
export type RangeRequest =
  | { kind: 'full' }
  | { kind: 'unsatisfiable' }
  /** Bytes `start` to `end`, both included. */
  | { kind: 'partial'; start: number; end: number };

/**
 * Reads a `Range` header (RFC 9110 §14.2) for a representation of `size` bytes. One range of
 * `bytes` is served (`a-b`, `a-`, `-n`); anything else (no header, another unit, several
 * ranges, bad syntax) gets the full representation, as the RFC allows. A range starting past
 * the end is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (!header) return { kind: 'full' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'full' };
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Number(match[2]);
  if (match[2] !== '' && end < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

/** A stream of bytes `start` to `end` (included) of the stream it is piped from. */
export function byteSlice(start: number, end: number): Transform {
  let offset = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const from = Math.max(start - offset, 0);
      const to = Math.min(end + 1 - offset, chunk.length);
      offset += chunk.length;
      done(null, from < to ? chunk.subarray(from, to) : undefined);
    },
  });
}
