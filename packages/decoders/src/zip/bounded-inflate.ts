import { Inflate } from 'fflate';

/**
 * Compressed bytes fed to the inflater at a time. Deflate expands at most ~1032:1, so one
 * slice inflates to 4 MiB at worst: the most a caller ever sees beyond a limit it checks.
 */
export const INFLATE_SLICE_BYTES = 4 * 1024;

/**
 * Called with each piece of inflated output and the compressed bytes consumed so far; throw
 * to stop inflating (the inflater and what it produced are then dropped).
 */
export type InflateSink = (chunk: Uint8Array, consumed: number) => void;

/**
 * Inflates a zip entry (method 0 stored or 8 deflate) as a stream: compressed bytes go in by
 * {@link INFLATE_SLICE_BYTES} slices, and `sink` sees every piece of output as it is produced,
 * so a limit checked in `sink` stops a bomb before it is inflated, whatever the headers claim.
 */
export function inflateEntry(method: number, compressed: Uint8Array, sink: InflateSink): void {
  if (method === 0) {
    sink(compressed, compressed.length);
    return;
  }
  if (method !== 8) throw new Error(`compression method ${method} is not supported`);
  let consumed = 0;
  let ended = false;
  const inflate = new Inflate((chunk, final) => {
    if (chunk.length > 0) sink(chunk, consumed);
    if (final) ended = true;
  });
  for (let offset = 0; offset < compressed.length; offset += INFLATE_SLICE_BYTES) {
    const slice = compressed.subarray(offset, Math.min(offset + INFLATE_SLICE_BYTES, compressed.length));
    consumed += slice.length;
    inflate.push(slice, consumed === compressed.length);
  }
  if (compressed.length === 0) inflate.push(new Uint8Array(0), true);
  if (!ended) throw new Error('the deflate stream is truncated');
}
