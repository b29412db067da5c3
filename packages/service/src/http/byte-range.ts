import { Readable } from 'node:stream';

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

/**
 * Bytes `start` to `end` (included) of `source`, for a storage that cannot read a range
 * itself. The source's errors destroy the slice (so the response is aborted, not the process);
 * destroying the slice (a client gone) destroys the source; once past `end` the slice ends and
 * the source is destroyed, so the bytes after the range are not read.
 */
export function sliceStream(source: Readable, start: number, end: number): Readable {
  let offset = 0;
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    slice.push(null);
  };
  const slice = new Readable({
    read() {
      if (!ended) source.resume();
    },
    destroy(error, callback) {
      source.destroy();
      callback(error);
    },
  });
  source.on('data', (chunk: Buffer) => {
    if (ended) return;
    const from = Math.max(start - offset, 0);
    const to = Math.min(end + 1 - offset, chunk.length);
    offset += chunk.length;
    const more = from < to ? slice.push(chunk.subarray(from, to)) : true;
    if (offset > end) {
      finish();
      source.destroy();
    } else if (!more) {
      source.pause();
    }
  });
  source.once('end', finish);
  source.once('error', (error) => slice.destroy(error));
  source.once('close', () => {
    // a source closed before its end without an error (destroyed elsewhere)
    if (!ended && !source.readableEnded) slice.destroy(new Error('the file stream closed before its end'));
  });
  return slice;
}
