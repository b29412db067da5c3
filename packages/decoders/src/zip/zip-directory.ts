import { unreadable } from '../limits.js';

/** One entry of a zip's central directory, located in the archive. */
export interface ZipDirectoryEntry {
  /** Name with `/` separators and no leading slash. */
  name: string;
  /** 0 = stored, 8 = deflate. */
  method: number;
  /** The entry's compressed bytes (a view into the archive). */
  compressed: Uint8Array;
  /** Uncompressed size the headers declare: a claim to check, never a budget. */
  declaredSize: number;
}

/** Where an entry lies in the archive: its local header to the end of its data. */
interface EntryRange {
  name: string;
  start: number;
  end: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const MAX32 = 0xffffffff;

/**
 * Lists the entries of a zip from its central directory, as zip readers do, calling `onEntry`
 * before each is parsed (so an entry count limit stops a huge directory early). Only offsets
 * come from the headers; every view is bounds-checked against the archive, and entries whose
 * bytes (local header to end of data) overlap are refused: real archives never share bytes
 * between entries, while a non-recursive zip bomb points many entries at one deflate stream.
 */
export function readZipDirectory(data: Uint8Array, format: string, onEntry: (index: number) => void): ZipDirectoryEntry[] {
  if (data.length < 4 || data[0] !== 0x50 || data[1] !== 0x4b)
    throw unreadable(format, 'not a zip archive (Office files are zip archives)');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const end = findEndOfDirectory(data, view);
  if (end < 0) throw unreadable(format, 'the archive is truncated (no end of central directory)');
  let count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  const locator = end - 20;
  if ((count === 0xffff || offset === MAX32) && locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR) {
    const zip64End = safeNumber(view.getBigUint64(locator + 8, true));
    if (zip64End + 56 > data.length || view.getUint32(zip64End, true) !== ZIP64_END)
      throw unreadable(format, 'the zip64 end of central directory is corrupt');
    count = safeNumber(view.getBigUint64(zip64End + 32, true));
    offset = safeNumber(view.getBigUint64(zip64End + 48, true));
  }
  const entries: ZipDirectoryEntry[] = [];
  const ranges: EntryRange[] = [];
  for (let i = 0; i < count; i++) {
    onEntry(i);
    if (offset + 46 > data.length || view.getUint32(offset, true) !== DIRECTORY_ENTRY)
      throw unreadable(format, 'the central directory is truncated or corrupt');
    const flags = view.getUint16(offset + 8, true);
    const method = view.getUint16(offset + 10, true);
    let compressedSize = view.getUint32(offset + 20, true);
    let declaredSize = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    let localOffset = view.getUint32(offset + 42, true);
    const nameStart = offset + 46;
    const extraStart = nameStart + nameLength;
    if (extraStart + extraLength > data.length) throw unreadable(format, 'the central directory is truncated or corrupt');
    const raw = Buffer.from(data.buffer, data.byteOffset + nameStart, nameLength);
    const name = raw
      .toString(flags & 0x800 ? 'utf8' : 'latin1')
      .replace(/\\/g, '/')
      .replace(/^\/+/, '');
    // Zip64: the sizes and offset that overflow 32 bits follow, in this order, in extra field 1.
    for (let at = extraStart; at + 4 <= extraStart + extraLength; ) {
      const id = view.getUint16(at, true);
      const size = view.getUint16(at + 2, true);
      let field = at + 4;
      if (id === 1) {
        const next = () => (field + 8 <= at + 4 + size ? safeNumber(view.getBigUint64((field += 8) - 8, true)) : MAX32);
        if (declaredSize === MAX32) declaredSize = next();
        if (compressedSize === MAX32) compressedSize = next();
        if (localOffset === MAX32) localOffset = next();
      }
      at += 4 + size;
    }
    if (flags & 1) throw unreadable(format, `entry ${name} is encrypted`);
    if (localOffset + 30 > data.length || view.getUint32(localOffset, true) !== LOCAL_HEADER)
      throw unreadable(format, `entry ${name} has no local header where the directory points`);
    const dataStart = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
    if (dataStart + compressedSize > data.length) throw unreadable(format, `entry ${name} runs past the end of the archive`);
    entries.push({ name, method, compressed: data.subarray(dataStart, dataStart + compressedSize), declaredSize });
    ranges.push({ name, start: localOffset, end: dataStart + compressedSize });
    offset = extraStart + extraLength + commentLength;
  }
  checkNoOverlap(ranges, format);
  return entries;
}

/** Throws when two entries share bytes of the archive (sorted by start, each must begin at or after the previous end). */
function checkNoOverlap(ranges: EntryRange[], format: string): void {
  ranges.sort((a, b) => a.start - b.start);
  for (let i = 1; i < ranges.length; i++) {
    const previous = ranges[i - 1]!;
    const range = ranges[i]!;
    if (range.start < previous.end) {
      throw unreadable(
        format,
        `entries ${previous.name} and ${range.name} overlap in the archive (a zip bomb's layout, never a real Office file's)`,
      );
    }
  }
}

/** Offset of the end-of-central-directory record (searched backwards past a comment), or -1. */
function findEndOfDirectory(data: Uint8Array, view: DataView): number {
  for (let at = data.length - 22; at >= Math.max(0, data.length - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) return at;
  }
  return -1;
}

function safeNumber(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}
