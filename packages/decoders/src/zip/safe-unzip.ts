import { KmError } from '@km/core';
import { checkAborted, overLimit, unreadable, type DecoderLimits } from '../limits.js';
import { inflateEntry } from './bounded-inflate.js';
import { readZipDirectory } from './zip-directory.js';

/** Inflated bytes an entry, or the archive, may reach before `maxCompressionRatio` is checked (small parts compress well). */
export const RATIO_GRACE_BYTES = 1024 * 1024;

/**
 * Reads the entries of a zip archive that `wanted` selects, from its central directory.
 * Every entry counts against `maxZipEntries`; each wanted entry is inflated as a stream and
 * stopped as soon as its inflated bytes pass the size its headers declare, `maxCompressionRatio`
 * times the compressed bytes read so far (past {@link RATIO_GRACE_BYTES}; checked for the entry
 * and for all the entries read so far together, so many small entries cannot add up to a bomb),
 * or, with the entries read before it, `maxUncompressedBytes`. A zip bomb thus costs a few MiB
 * of memory before it is refused, never its inflated size.
 */
export function readZipEntries(
  data: Uint8Array,
  wanted: (name: string) => boolean,
  limits: DecoderLimits,
  format: string,
  signal?: AbortSignal,
): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>();
  for (const [name, chunks] of readZipParts(data, wanted, limits, format, signal)) entries.set(name, concat(chunks));
  return entries;
}

/**
 * {@link readZipEntries}, with each entry kept as the chunks it inflated to (never joined), for
 * `readXml` to parse as they are: a part costs its inflated size once, not twice.
 */
export function readZipParts(
  data: Uint8Array,
  wanted: (name: string) => boolean,
  limits: DecoderLimits,
  format: string,
  signal?: AbortSignal,
): Map<string, Uint8Array[]> {
  const directory = readZipDirectory(data, format, (index) => {
    if (index >= limits.maxZipEntries) throw overLimit(`the ${format} archive`, 'maxZipEntries', limits.maxZipEntries);
  });
  if (directory.length === 0) throw unreadable(format, 'the archive holds no entries');
  const entries = new Map<string, Uint8Array[]>();
  let total = 0;
  let totalConsumed = 0;
  for (const entry of directory) {
    if (!wanted(entry.name)) continue;
    checkAborted(signal);
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      inflateEntry(entry.method, entry.compressed, (chunk, consumed) => {
        size += chunk.length;
        total += chunk.length;
        if (size > entry.declaredSize)
          throw unreadable(format, `entry ${entry.name} inflates past the ${entry.declaredSize} bytes its zip headers declare`);
        if (total > limits.maxUncompressedBytes) {
          throw overLimit(
            `the ${format} archive's uncompressed content (at entry ${entry.name})`,
            'maxUncompressedBytes',
            limits.maxUncompressedBytes,
          );
        }
        if (size > RATIO_GRACE_BYTES && size > consumed * limits.maxCompressionRatio) {
          throw overLimit(
            `entry ${entry.name} of the ${format} archive (${size} bytes inflated from ${consumed})`,
            'maxCompressionRatio',
            limits.maxCompressionRatio,
          );
        }
        if (total > RATIO_GRACE_BYTES && total > (totalConsumed + consumed) * limits.maxCompressionRatio) {
          throw overLimit(
            `the ${format} archive's entries read so far, up to ${entry.name} (${total} bytes inflated from ${totalConsumed + consumed})`,
            'maxCompressionRatio',
            limits.maxCompressionRatio,
          );
        }
        checkAborted(signal);
        chunks.push(chunk);
      });
    } catch (e) {
      if (e instanceof KmError) throw e;
      throw unreadable(format, `entry ${entry.name} is corrupt (${(e as Error).message})`, e);
    }
    totalConsumed += entry.compressed.length;
    entries.set(entry.name, chunks);
  }
  return entries;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}
