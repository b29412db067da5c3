import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import { EngineError } from './engine-error.js';
import { openIfPresent } from './util.js';
import { BlobColumn, idHash, idTableSize, RecordBase } from './record-base.js';

/**
 * The base file of a SimpleVectorDb index (`records.base`): every live record as of the last
 * checkpoint, column by column, so that loading reads each column straight into its final
 * memory (the vector rows into the WebAssembly segments) instead of decoding one log entry per
 * record. The log then holds only the changes made since.
 *
 * Layout: `[magic 8][footer offset u64]`, the sections, then the footer
 * `[json length u32][crc32 u32][json]`; the footer names each section's offset, length and
 * crc32. The vector rows and int8 codes (nearly all the bytes) carry no checksum: reading them
 * at memory speed is the point, and the file is written to a temporary name, synced and
 * renamed, so it is never seen torn. Every other section is checked. Numbers are little-endian.
 */

const MAGIC = Buffer.from('KMBASE\u0000\u0001', 'latin1');
const PREAMBLE = 16;
/** Version of the layout below; a reader refuses another. */
const FORMAT = 1;
/** Bytes buffered before a write. */
const WRITE_CHUNK = 8 * 1024 * 1024;
/** Most bytes one read or write call moves. */
const IO_CHUNK = 256 * 1024 * 1024;
/** Largest chunk of a blob column held in one Buffer (whole records each). */
const BLOB_CHUNK = 512 * 1024 * 1024;

/** [offset, bytes, crc32 or null (unchecked)] of a section. */
type SectionPlace = [number, number, number | null];

/** The footer of a base file. */
export interface BaseHeader {
  format: number;
  dimensions: number;
  count: number;
  /** Bytes of one stored vector row (a segment's row stride). */
  rowBytes: number;
  /** The int8 codes, when the writer kept them: their encoding and bytes per code row. */
  codes?: { encoding: string; rowBytes: number };
  sections: Record<string, SectionPlace>;
}

/** What a base file is written from: the live records, in the order of their rows. */
export interface BaseSource {
  dimensions: number;
  count: number;
  rowBytes: number;
  /** The rows of every segment, back to back in record order (views of the segments' memory). */
  rowRegions(): Iterable<Uint8Array>;
  /** The int8 code rows likewise, with their encoding, when the index keeps them. */
  codes?: { encoding: string; rowBytes: number; regions(): Iterable<Uint8Array> } | undefined;
  idAt(i: number): string;
  /** Tags as JSON (a string, or the bytes a base already holds). */
  tagsJsonAt(i: number): string | Uint8Array;
  payloadJsonAt(i: number): string | Uint8Array;
  normAt(i: number): number;
  hasTextAt(i: number): boolean;
  /** Every tag pair and the records (their positions in this order) that hold it. */
  postings(): Iterable<[string, string | null, Uint32Array]>;
}

/** False on a big-endian machine, where base files are neither written nor read (the log serves alone). */
export function baseFilesSupported(): boolean {
  return endianness() === 'LE';
}

/**
 * Writes `source` to `path` through `path.tmp`, synced and renamed into place (the caller syncs
 * the folder); on failure (a full disk) the temporary file is removed and `path` is untouched.
 */
export async function writeBaseFile(path: string, source: BaseSource): Promise<void> {
  const temp = `${path}.tmp`;
  try {
    await writeTo(temp, source);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await rename(temp, path);
}

async function writeTo(temp: string, source: BaseSource): Promise<void> {
  const handle = await open(temp, 'w');
  try {
    const sink = new Sink(handle);
    await sink.bytes(Buffer.alloc(PREAMBLE)); // the preamble, written last
    const sections: Record<string, SectionPlace> = {};
    const n = source.count;

    sink.begin(false);
    for (const region of source.rowRegions()) await sink.bytes(region);
    sections.rows = await sink.end();
    if (source.codes) {
      sink.begin(false);
      for (const region of source.codes.regions()) await sink.bytes(region);
      sections.codes = await sink.end();
    }

    const norms = new Float64Array(n);
    const hasText = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      norms[i] = source.normAt(i);
      hasText[i] = source.hasTextAt(i) ? 1 : 0;
    }
    sections.norms = await sink.section(bytesOf(norms));
    sections.hasText = await sink.section(hasText);

    // Ids: the bytes, their offsets, and the table that finds them.
    const table = new Uint32Array(idTableSize(n));
    const mask = table.length - 1;
    const idOffsets = new Float64Array(n + 1);
    let scratch = Buffer.allocUnsafe(256);
    sink.begin(true);
    for (let i = 0; i < n; i++) {
      const id = source.idAt(i);
      const length = Buffer.byteLength(id, 'utf8');
      if (length > scratch.length) scratch = Buffer.allocUnsafe(length * 2);
      scratch.write(id, 'utf8');
      let at = idHash(scratch, length) & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = i + 1;
      await sink.bytes(scratch.subarray(0, length));
      idOffsets[i + 1] = idOffsets[i]! + length;
    }
    sections['ids.bytes'] = await sink.end();
    sections['ids.offsets'] = await sink.section(bytesOf(idOffsets));
    sections.idTable = await sink.section(bytesOf(table));

    for (const [name, at] of [
      ['tags', (i: number) => source.tagsJsonAt(i)],
      ['payloads', (i: number) => source.payloadJsonAt(i)],
    ] as const) {
      const offsets = new Float64Array(n + 1);
      sink.begin(true);
      for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + (await sink.text(at(i)));
      sections[`${name}.bytes`] = await sink.end();
      sections[`${name}.offsets`] = await sink.section(bytesOf(offsets));
    }

    const pairs: Array<[string, string | null, number]> = [];
    sink.begin(true);
    for (const [key, value, positions] of source.postings()) {
      pairs.push([key, value, positions.length]);
      await sink.bytes(bytesOf(positions));
    }
    sections.tagSlots = await sink.end();
    sections.tagPairs = await sink.section(Buffer.from(JSON.stringify(pairs), 'utf8'));

    const header: BaseHeader = { format: FORMAT, dimensions: source.dimensions, count: n, rowBytes: source.rowBytes, sections };
    if (source.codes) header.codes = { encoding: source.codes.encoding, rowBytes: source.codes.rowBytes };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const footer = Buffer.allocUnsafe(8);
    footer.writeUInt32LE(json.length, 0);
    footer.writeUInt32LE(crc32(json), 4);
    const footerAt = sink.position;
    await sink.bytes(footer);
    await sink.bytes(json);
    await sink.flush();
    const preamble = Buffer.alloc(PREAMBLE);
    MAGIC.copy(preamble, 0);
    preamble.writeBigUInt64LE(BigInt(footerAt), 8);
    await handle.write(preamble, 0, PREAMBLE, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** An open base file: its footer, read and checked; the sections are read on demand. */
export class BaseFile {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    readonly header: BaseHeader,
  ) {}

  /** Opens and checks the base file at `path`; undefined when there is none. */
  static async open(path: string): Promise<BaseFile | undefined> {
    const handle = await openIfPresent(path);
    if (!handle) return undefined;
    try {
      if (!baseFilesSupported()) throw corrupt(path, 'base files are little-endian and this machine is not');
      const { size } = await handle.stat();
      if (size < PREAMBLE + 8) throw corrupt(path, `it holds ${size} bytes, too few for a base file`);
      const preamble = Buffer.alloc(PREAMBLE);
      await readFully(handle, preamble, 0);
      if (!preamble.subarray(0, 8).equals(MAGIC)) throw corrupt(path, 'it does not start as a base file');
      const footerAt = Number(preamble.readBigUInt64LE(8));
      if (footerAt < PREAMBLE || footerAt + 8 > size) throw corrupt(path, 'its footer is missing');
      const head = Buffer.alloc(8);
      await readFully(handle, head, footerAt);
      const length = head.readUInt32LE(0);
      if (footerAt + 8 + length !== size) throw corrupt(path, 'its footer does not end the file');
      const json = Buffer.alloc(length);
      await readFully(handle, json, footerAt + 8);
      if (crc32(json) !== head.readUInt32LE(4)) throw corrupt(path, 'its footer fails its checksum');
      const header = JSON.parse(json.toString('utf8')) as BaseHeader;
      if (header.format !== FORMAT) throw corrupt(path, `it has format ${header.format}; this version reads ${FORMAT}`);
      for (const [name, [offset, bytes]] of Object.entries(header.sections)) {
        if (offset < PREAMBLE || offset + bytes > footerAt) throw corrupt(path, `its section ${name} runs outside the file`);
      }
      return new BaseFile(path, handle, header);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Reads an unchecked region section (`rows`, `codes`) from byte `from` of it into `into`. */
  async readRegion(name: 'rows' | 'codes', from: number, into: Uint8Array): Promise<void> {
    const [offset, bytes] = this.place(name);
    if (from + into.length > bytes) throw corrupt(this.path, `its section ${name} is shorter than its records`);
    await readFully(this.handle, into, offset + from);
  }

  /** The record columns (everything but the rows and codes), checked against their checksums. */
  async readColumns(): Promise<{ base: RecordBase; postings: Array<[string, string | null, Uint32Array]> }> {
    const n = this.header.count;
    const norms = new Float64Array(await this.typed('norms', n * 8));
    const hasText = new Uint8Array(await this.typed('hasText', n));
    const table = new Uint32Array(await this.typed('idTable', idTableSize(n) * 4));
    const ids = await this.blob('ids', n);
    const tags = await this.blob('tags', n);
    const payloads = await this.blob('payloads', n);
    for (const entry of table) if (entry > n) throw corrupt(this.path, 'its id table names a record it does not hold');
    const pairs = JSON.parse((await this.checked('tagPairs')).toString('utf8')) as Array<[string, string | null, number]>;
    const slots = new Uint32Array(await this.typed('tagSlots', pairs.reduce((sum, p) => sum + p[2], 0) * 4));
    const postings: Array<[string, string | null, Uint32Array]> = [];
    let at = 0;
    for (const [key, value, count] of pairs) {
      const part = slots.subarray(at, at + count);
      for (const slot of part) if (slot >= n) throw corrupt(this.path, `its tag ${key} names a record it does not hold`);
      postings.push([key, value, part]);
      at += count;
    }
    return { base: new RecordBase(n, ids, table, tags, payloads, norms, hasText), postings };
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private place(name: string): SectionPlace {
    const place = this.header.sections[name];
    if (!place) throw corrupt(this.path, `it has no section ${name}`);
    return place;
  }

  /** A checked section that must be `bytes` long, in a fresh (aligned) ArrayBuffer. */
  private async typed(name: string, bytes: number): Promise<ArrayBuffer> {
    const [, length] = this.place(name);
    if (length !== bytes) throw corrupt(this.path, `its section ${name} has ${length} bytes, not ${bytes}`);
    const buffer = new ArrayBuffer(bytes);
    await this.checkedInto(name, new Uint8Array(buffer));
    return buffer;
  }

  private async checked(name: string): Promise<Buffer> {
    const out = Buffer.alloc(this.place(name)[1]);
    await this.checkedInto(name, out);
    return out;
  }

  private async checkedInto(name: string, into: Uint8Array): Promise<void> {
    const [offset, , crc] = this.place(name);
    await readFully(this.handle, into, offset);
    if (crc !== null && crc32(into) !== crc) throw corrupt(this.path, `its section ${name} fails its checksum`);
  }

  /** A blob column of `n` records: offsets, then the bytes in chunks of whole records, checked. */
  private async blob(name: string, n: number): Promise<BlobColumn> {
    const offsets = new Float64Array(await this.typed(`${name}.offsets`, (n + 1) * 8));
    const [offset, bytes, crc] = this.place(`${name}.bytes`);
    if (offsets[0] !== 0 || offsets[n] !== bytes) throw corrupt(this.path, `its ${name} offsets do not span their bytes`);
    for (let i = 0; i < n; i++) {
      if (!(offsets[i + 1]! >= offsets[i]!)) throw corrupt(this.path, `its ${name} offsets go backwards`);
    }
    const chunks: Buffer[] = [];
    const starts: number[] = [];
    let sum: number | undefined;
    for (let i = 0; i < n || chunks.length === 0; ) {
      // Whole records up to BLOB_CHUNK bytes (at least one record).
      const start = offsets[i]!;
      let end = i + 1;
      while (end < n && offsets[end + 1]! - start <= BLOB_CHUNK) end++;
      const chunk = Buffer.allocUnsafe(n === 0 ? 0 : offsets[Math.min(end, n)]! - start);
      await readFully(this.handle, chunk, offset + start);
      sum = sum === undefined ? crc32(chunk) : crc32(chunk, sum);
      chunks.push(chunk);
      starts.push(start);
      i = end;
    }
    if (crc !== null && (sum ?? 0) !== crc) throw corrupt(this.path, `its section ${name}.bytes fails its checksum`);
    return new BlobColumn(offsets, chunks, starts);
  }
}

function corrupt(path: string, reason: string): EngineError {
  return new EngineError('storage_corrupt', `${path} cannot be read: ${reason}`, { ofStore: true });
}

function bytesOf(array: Float32Array | Float64Array | Uint32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** Reads `into.length` bytes at `position`, in calls of at most {@link IO_CHUNK}, two at a time. */
async function readFully(handle: FileHandle, into: Uint8Array, position: number): Promise<void> {
  const part = async (from: number, to: number): Promise<void> => {
    for (let at = from; at < to; ) {
      const { bytesRead } = await handle.read(into, at, Math.min(IO_CHUNK, to - at), position + at);
      if (bytesRead === 0) throw new EngineError('storage_corrupt', 'a base file ended early', { ofStore: true });
      at += bytesRead;
    }
  };
  if (into.length < 2 * IO_CHUNK) return part(0, into.length);
  // Two reads in flight: the page faults of fresh memory are taken on two threads.
  const half = Math.floor(into.length / 2);
  await Promise.all([part(0, half), part(half, into.length)]);
}

/** Buffered sequential writes with a running crc32 per section. */
class Sink {
  private buffer = Buffer.allocUnsafe(WRITE_CHUNK);
  private filled = 0;
  private sectionStart = 0;
  private crc: number | null = null;
  /** Bytes written so far (the file position of the next byte). */
  position = 0;

  constructor(private readonly handle: FileHandle) {}

  begin(checked: boolean): void {
    this.sectionStart = this.position;
    this.crc = checked ? 0 : null;
  }

  async end(): Promise<SectionPlace> {
    return [this.sectionStart, this.position - this.sectionStart, this.crc];
  }

  async section(bytes: Uint8Array): Promise<SectionPlace> {
    this.begin(true);
    await this.bytes(bytes);
    return this.end();
  }

  async bytes(bytes: Uint8Array): Promise<void> {
    if (this.crc !== null) this.crc = crc32(bytes, this.crc);
    this.position += bytes.length;
    if (bytes.length >= WRITE_CHUNK) {
      await this.flush();
      for (let at = 0; at < bytes.length; at += IO_CHUNK) {
        const length = Math.min(IO_CHUNK, bytes.length - at);
        let written = 0;
        while (written < length) written += (await this.handle.write(bytes, at + written, length - written)).bytesWritten;
      }
      return;
    }
    if (this.filled + bytes.length > this.buffer.length) await this.flush();
    this.buffer.set(bytes, this.filled);
    this.filled += bytes.length;
  }

  /** Writes a string as UTF-8 (or bytes as they are); returns the bytes written. */
  async text(value: string | Uint8Array): Promise<number> {
    if (typeof value !== 'string') {
      await this.bytes(value);
      return value.length;
    }
    const length = Buffer.byteLength(value, 'utf8');
    if (length > WRITE_CHUNK / 2) {
      await this.bytes(Buffer.from(value, 'utf8'));
      return length;
    }
    if (this.filled + length > this.buffer.length) await this.flush();
    this.buffer.write(value, this.filled, 'utf8');
    const written = this.buffer.subarray(this.filled, this.filled + length);
    if (this.crc !== null) this.crc = crc32(written, this.crc);
    this.filled += length;
    this.position += length;
    return length;
  }

  async flush(): Promise<void> {
    let written = 0;
    while (written < this.filled) written += (await this.handle.write(this.buffer, written, this.filled - written)).bytesWritten;
    this.filled = 0;
  }
}
