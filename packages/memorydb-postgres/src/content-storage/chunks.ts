import { Readable } from 'node:stream';
import { SourceStreamError } from './content-errors.js';

/**
 * The caller's content cut into chunks of exactly `size` bytes (the last one shorter), holding
 * at most one chunk and one incoming piece in memory. An error of the source comes out as a
 * {@link SourceStreamError}, so it is not mistaken for a database error.
 */
export async function* rechunk(source: AsyncIterable<Uint8Array | string>, size: number): AsyncGenerator<Buffer> {
  let pieces: Buffer[] = [];
  let held = 0;
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array | string>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw new SourceStreamError(error);
      }
      if (next.done) break;
      const piece =
        typeof next.value === 'string'
          ? Buffer.from(next.value)
          : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      pieces.push(piece);
      held += piece.length;
      if (held < size) continue;
      let all = Buffer.concat(pieces, held);
      while (all.length >= size) {
        yield Buffer.from(all.subarray(0, size));
        all = all.subarray(size);
      }
      pieces = all.length > 0 ? [Buffer.from(all)] : [];
      held = all.length;
    }
    if (held > 0) yield Buffer.concat(pieces, held);
  } finally {
    await iterator.return?.();
  }
}

/** Where the bytes `start`–`end` (included) lie: chunk `seq`, from `offset` (0-based), `length` bytes. */
export interface ChunkSlice {
  seq: number;
  offset: number;
  length: number;
}

/** The chunks a byte range covers, first and last cut to the range. */
export function slicesOf(start: number, end: number, chunkSize: number): ChunkSlice[] {
  const slices: ChunkSlice[] = [];
  for (let seq = Math.floor(start / chunkSize); seq <= Math.floor(end / chunkSize); seq++) {
    const from = Math.max(start, seq * chunkSize);
    const to = Math.min(end, (seq + 1) * chunkSize - 1);
    slices.push({ seq, offset: from - seq * chunkSize, length: to - from + 1 });
  }
  return slices;
}

/** A stream that fetches one slice per read, only when the consumer asks for more. */
export function sliceStream(slices: ChunkSlice[], fetch: (slice: ChunkSlice) => Promise<Buffer>): Readable {
  let next = 0;
  return new Readable({
    read() {
      const slice = slices[next++];
      if (!slice) {
        this.push(null);
        return;
      }
      fetch(slice).then(
        (bytes) => this.push(bytes),
        (error: unknown) => this.destroy(error as Error),
      );
    },
  });
}

/** An iterable as an async one. */
export async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
