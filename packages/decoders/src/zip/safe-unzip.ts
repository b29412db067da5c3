import { Unzip, UnzipInflate, UnzipPassThrough } from 'fflate';
import { checkAborted, overLimit, unreadable, type DecoderLimits } from '../limits.js';

/**
 * Reads the entries of a zip archive that `wanted` selects, counting every entry against
 * `maxZipEntries` and every inflated byte (whatever the headers claim) against
 * `maxUncompressedBytes`, so a zip bomb stops at the limit instead of filling memory.
 */
export function readZipEntries(
  data: Uint8Array,
  wanted: (name: string) => boolean,
  limits: DecoderLimits,
  format: string,
  signal?: AbortSignal,
): Map<string, Uint8Array> {
  if (data.length < 4 || data[0] !== 0x50 || data[1] !== 0x4b) throw unreadable(format, 'not a zip archive (Office files are zip archives)');
  // The end-of-central-directory record closes every zip: without it the file was cut short.
  const tail = Buffer.from(data.buffer, data.byteOffset, data.byteLength).subarray(Math.max(0, data.length - 65_557));
  if (tail.indexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) < 0) throw unreadable(format, 'the archive is truncated (no end of central directory)');
  const entries = new Map<string, Uint8Array>();
  let count = 0;
  let inflated = 0;
  let failure: unknown;
  const unzip = new Unzip((file) => {
    if (failure) return;
    count++;
    if (count > limits.maxZipEntries) {
      failure = overLimit(`the ${format} archive`, 'maxZipEntries', limits.maxZipEntries);
      return;
    }
    const name = file.name.replace(/\\/g, '/').replace(/^\/+/, '');
    if (!wanted(name)) return;
    const chunks: Uint8Array[] = [];
    file.ondata = (error, chunk, final) => {
      if (failure) return;
      if (error) {
        failure = unreadable(format, `entry ${name} is corrupt (${error.message})`, error);
        return;
      }
      inflated += chunk.length;
      if (inflated > limits.maxUncompressedBytes) {
        failure = overLimit(`the ${format} archive's uncompressed content`, 'maxUncompressedBytes', limits.maxUncompressedBytes);
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) entries.set(name, concat(chunks));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  try {
    // Push in slices so that a time limit or a bomb is noticed between them.
    const step = 1 << 20;
    for (let offset = 0; offset < data.length && !failure; offset += step) {
      checkAborted(signal);
      unzip.push(data.subarray(offset, Math.min(offset + step, data.length)), offset + step >= data.length);
    }
  } catch (e) {
    failure ??= unreadable(format, `the archive is corrupt (${(e as Error).message})`, e);
  }
  if (failure) throw failure;
  if (count === 0) throw unreadable(format, 'the archive holds no entries');
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
