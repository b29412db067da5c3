import { mkdir, open, rename, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { openIfPresent } from './util.js';
import { readDeleteJson, readRecordJson } from './record-json.js';

/**
 * One entry of the log: an upsert carries the record (and its vector), a delete only the id.
 * An upsert read back may carry its parsed `payload` (the object `payloadJson` holds), when the
 * reader parsed it.
 */
export type LogEntry =
  | {
      op: 'upsert';
      record: { id: string; tags: unknown; payloadJson: string };
      vector: Float32Array | undefined;
      payload?: Record<string, unknown>;
    }
  | { op: 'delete'; id: string };

/**
 * Receives each intact entry of a log read in order. The entry's vector is a scratch array the
 * reader reuses for the next entry: copy it to keep it.
 */
export type LogVisitor = (entry: LogEntry) => void;

/** What `load()` cut from the end of a log: its size and the record ids it still names. */
export interface TornTail {
  bytes: number;
  /** Ids found in the cut bytes (upserts and deletes), in order, without duplicates; best effort. */
  recordIds: string[];
}

const OP_UPSERT = 1;
const OP_DELETE = 2;
const HEADER = 8; // body length u32 + crc32 u32
/** Bytes read from the file at a time when streaming it; an entry larger than this gets a larger buffer. */
const READ_CHUNK = 4 * 1024 * 1024;

/**
 * Append-only, checksummed log of one index's changes. Each entry is
 * `[length u32][crc32 u32][op u8][json length u32][json][vector f32...]`. Loading stops at the
 * first torn or corrupt entry (a crash mid-write) and cuts the file there; compaction rewrites
 * the live records to a temporary file and renames it into place.
 */
export class RecordLog {
  private handle: FileHandle | undefined;
  /** Entries in the file that a later entry replaced or deleted. */
  deadEntries = 0;
  /** What the last `load()` cut, if it cut anything. */
  lastCut: TornTail | undefined;

  constructor(
    private readonly directory: string,
    private readonly durable: boolean,
    private readonly fileName = 'records.log',
  ) {}

  private get path(): string {
    return join(this.directory, this.fileName);
  }

  /** Reads every intact entry, in order; cuts a torn tail. */
  async load(): Promise<LogEntry[]> {
    const entries: LogEntry[] = [];
    await this.loadEach((entry) => entries.push(owned(entry)));
    return entries;
  }

  /**
   * Streams every intact entry, in order, to `visit` (see {@link LogVisitor}: its vector is
   * reused), reading the file in chunks rather than whole; cuts a torn or corrupt tail, as
   * `load()` does. Returns the number of entries, where the last one ends (the file's size after
   * the cut) and the file's inode (0 when there is no log).
   */
  async loadEach(visit: LogVisitor): Promise<{ entries: number; end: number; ino: number }> {
    const handle = await openIfPresent(this.path);
    if (!handle) return { entries: 0, end: 0, ino: 0 };
    let scanned: Scanned;
    let ino: number;
    let cut: TornTail | undefined;
    try {
      const info = await handle.stat();
      ino = info.ino;
      scanned = await scan(handle, 0, info.size, visit);
      // The cut runs from the last intact entry to the end of the file, wherever the scan stopped.
      if (scanned.end < info.size) cut = await salvageRange(handle, scanned.end, info.size);
    } finally {
      await handle.close();
    }
    this.lastCut = undefined;
    if (cut) {
      this.lastCut = cut;
      await truncate(this.path, scanned.end);
    }
    return { entries: scanned.entries, end: scanned.end, ino };
  }

  /** Identity and size of the log file, or undefined when there is none. */
  async position(): Promise<{ ino: number; size: number } | undefined> {
    try {
      const info = await stat(this.path);
      return { ino: info.ino, size: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * Reads the complete entries from byte `offset` on, written since by this or another
   * process; never cuts anything (another writer may be mid-append). Returns where the last
   * complete entry ends and the file read (its inode; 0 when there is no log yet).
   */
  async readFrom(offset: number): Promise<{ entries: LogEntry[]; end: number; ino: number }> {
    const entries: LogEntry[] = [];
    const { end, ino } = await this.readEachFrom(offset, (entry) => entries.push(owned(entry)));
    return { entries, end, ino };
  }

  /** {@link readFrom} streaming each entry to `visit` (its vector is reused); returns how many there were. */
  async readEachFrom(offset: number, visit: LogVisitor): Promise<{ entries: number; end: number; ino: number }> {
    const handle = await openIfPresent(this.path);
    if (!handle) return { entries: 0, end: offset, ino: 0 };
    try {
      const { size, ino } = await handle.stat();
      if (size <= offset) return { entries: 0, end: offset, ino };
      const scanned = await scan(handle, offset, size, visit);
      return { entries: scanned.entries, end: scanned.end, ino };
    } finally {
      await handle.close();
    }
  }

  /**
   * Appends entries with one write (and one fsync when durable). Returns the byte range the
   * write ended at and its length, so a caller can tell whether another process wrote between.
   */
  async append(entries: LogEntry[]): Promise<{ end: number; length: number; ino: number }> {
    if (entries.length === 0) return { end: -1, length: 0, ino: 0 };
    const handle = await this.open();
    const data = Buffer.concat(entries.map(encode));
    const before = (await handle.stat()).size;
    try {
      await handle.write(data);
      if (this.durable) await handle.datasync();
    } catch (error) {
      // A write that failed part way (a full disk) may have left part of an entry: cut it, or
      // every later append would follow a torn entry, where loading stops.
      await this.close().catch(() => undefined);
      await truncate(this.path, before).catch(() => undefined);
      throw error;
    }
    const { size, ino } = await handle.stat();
    return { end: size, length: data.length, ino };
  }

  /** Replaces the log with exactly `entries` (atomically). */
  async rewrite(entries: LogEntry[]): Promise<void> {
    await this.close();
    await mkdir(this.directory, { recursive: true });
    const temp = `${this.path}.compact`;
    const handle = await open(temp, 'w');
    try {
      const chunk: Buffer[] = [];
      let bytes = 0;
      for (const entry of entries) {
        const buf = encode(entry);
        chunk.push(buf);
        bytes += buf.length;
        if (bytes > 8 * 1024 * 1024) {
          await handle.write(Buffer.concat(chunk));
          chunk.length = 0;
          bytes = 0;
        }
      }
      if (chunk.length) await handle.write(Buffer.concat(chunk));
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
    this.deadEntries = 0;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  /** Closes and removes the log. */
  async destroy(): Promise<void> {
    await this.close();
    await rm(this.path, { force: true });
  }

  private async open(): Promise<FileHandle> {
    if (!this.handle) {
      await mkdir(this.directory, { recursive: true });
      this.handle = await open(this.path, 'a');
    }
    return this.handle;
  }
}

/** How far a {@link scan} got: where the last intact entry ends and how many there were. */
interface Scanned {
  end: number;
  entries: number;
}

/**
 * Streams the intact entries between `offset` and `size` to `visit`, reading chunks into two
 * reused buffers (no copy of the whole file): the next chunk is read (on libuv's thread pool)
 * while the entries of the current one are checked and visited. Stops at the first torn or
 * corrupt entry. An entry whose length field runs past `size` is torn: a buffer only grows for
 * entries that fit.
 */
async function scan(handle: FileHandle, offset: number, size: number, visit: LogVisitor): Promise<Scanned> {
  const chunk = Math.min(READ_CHUNK, Math.max(HEADER, size - offset));
  let buffer: Buffer = Buffer.allocUnsafe(chunk);
  let spare: Buffer | undefined;
  const decoder = new EntryDecoder();
  let base = offset; // file offset of buffer[0]
  let filled = (await handle.read(buffer, 0, Math.min(chunk, size - base), base)).bytesRead;
  let entries = 0;
  for (;;) {
    // Where the complete entries of the buffer end, and whether a torn one follows them.
    let complete = 0;
    let torn = false;
    while (complete + HEADER <= filled) {
      const length = buffer.readUInt32LE(complete);
      const end = complete + HEADER + length;
      if (length < 5 || base + end > size) {
        torn = true;
        break;
      }
      if (end > filled) break;
      complete = end;
    }
    // Start reading what follows into the other buffer, after the unread part of this one.
    let pending: Promise<{ bytesRead: number }> | undefined;
    let next: Buffer | undefined;
    const leftover = filled - complete;
    if (!torn && base + filled < size) {
      // An entry larger than a chunk gets a larger buffer (it fits in the file: checked above).
      const needed = leftover >= HEADER ? HEADER + buffer.readUInt32LE(complete) : HEADER;
      const capacity = Math.max(chunk, Math.min(needed, size - base - complete));
      next = spare && spare.length >= capacity ? spare : Buffer.allocUnsafe(capacity);
      buffer.copy(next, 0, complete, filled);
      pending = handle.read(next, leftover, Math.min(next.length - leftover, size - base - filled), base + filled);
    }
    try {
      for (let at = 0; at < complete; ) {
        const end = at + HEADER + buffer.readUInt32LE(at);
        const body = buffer.subarray(at + HEADER, end);
        if (crc32(body) !== buffer.readUInt32LE(at + 4)) return { end: base + at, entries };
        visit(decoder.decode(body));
        entries++;
        at = end;
      }
    } finally {
      // A read still running when the scan stops early (or the visitor throws) must not outlive
      // the handle the caller closes: wait for it; its result no longer matters then.
      if (pending) await pending.catch(() => undefined);
    }
    if (!pending || !next) return { end: base + complete, entries };
    const { bytesRead } = await pending;
    if (bytesRead === 0) return { end: base + complete, entries };
    spare = buffer;
    buffer = next;
    base += complete;
    filled = leftover + bytesRead;
  }
}

const ID_MARKER = Buffer.from('{"id":"', 'utf8');
/** Longest id literal {@link salvageIds} reads after a marker, in bytes. */
const ID_WINDOW = 4096;

/**
 * What cutting the file from `start` to `end` drops: the bytes actually there and the record ids
 * in them (see {@link salvageIds}). Reads the range in chunks, so memory stays at one chunk
 * however large the cut is; a marker near a chunk's end is read with the bytes after it.
 */
async function salvageRange(handle: FileHandle, start: number, end: number): Promise<TornTail> {
  const ids = new Set<string>();
  const overlap = ID_MARKER.length + ID_WINDOW;
  const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - start) + overlap);
  let bytes = 0;
  for (let at = start; at < end; ) {
    let filled = 0;
    const want = Math.min(buffer.length, end - at);
    while (filled < want) {
      const { bytesRead } = await handle.read(buffer, filled, want - filled, at + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const last = at + filled >= end || filled < want;
    // Markers starting in the overlap are left to the next chunk, which starts there.
    const step = last ? filled : Math.min(filled, READ_CHUNK);
    collectIds(buffer.subarray(0, filled), step, ids);
    bytes += step;
    if (last) break;
    at += step;
  }
  return { bytes, recordIds: [...ids] };
}

/**
 * The record ids still readable in a torn or corrupt tail: every entry's JSON starts with
 * `{"id":"…"`, so the ids of entries cut short (and of any intact ones after a corrupt one)
 * can be read even when the entry cannot.
 */
export function salvageIds(tail: Buffer): string[] {
  const ids = new Set<string>();
  collectIds(tail, tail.length, ids);
  return [...ids];
}

/** Adds to `ids` the id after each marker in `data` that starts before `limit` (see {@link salvageIds}). */
function collectIds(data: Buffer, limit: number, ids: Set<string>): void {
  for (let at = data.indexOf(ID_MARKER); at >= 0 && at < limit; at = data.indexOf(ID_MARKER, at + ID_MARKER.length)) {
    const from = at + ID_MARKER.length - 1;
    const text = data.subarray(from, from + ID_WINDOW).toString('utf8');
    const literal = /^"(?:[^"\\]|\\.)*"/.exec(text);
    if (!literal) continue; // the id itself was cut
    try {
      ids.add(JSON.parse(literal[0]) as string);
    } catch {
      // not a JSON string after all
    }
  }
}

function encode(entry: LogEntry): Buffer {
  const text =
    entry.op === 'upsert'
      ? `{"id":${JSON.stringify(entry.record.id)},"tags":${JSON.stringify(entry.record.tags)},"payload":${entry.record.payloadJson}}`
      : JSON.stringify({ id: entry.id });
  const json = Buffer.from(text, 'utf8');
  const vector = entry.op === 'upsert' && entry.vector ? entry.vector : undefined;
  const vectorBytes = vector ? vector.length * 4 : 0;
  const bodyLength = 1 + 4 + json.length + vectorBytes;
  const out = Buffer.allocUnsafe(HEADER + bodyLength);
  out.writeUInt8(entry.op === 'upsert' ? OP_UPSERT : OP_DELETE, HEADER);
  out.writeUInt32LE(json.length, HEADER + 1);
  json.copy(out, HEADER + 5);
  if (vector) Buffer.from(vector.buffer, vector.byteOffset, vectorBytes).copy(out, HEADER + 5 + json.length);
  out.writeUInt32LE(bodyLength, 0);
  out.writeUInt32LE(crc32(out.subarray(HEADER)), 4);
  return out;
}

/** Decodes entry bodies; the vector of an upsert is a scratch array reused for the next one. */
class EntryDecoder {
  private vector = new Float32Array(0);
  private bytes = new Uint8Array(this.vector.buffer);

  decode(body: Buffer): LogEntry {
    const op = body.readUInt8(0);
    const jsonLength = body.readUInt32LE(1);
    const text = body.toString('utf8', 5, 5 + jsonLength);
    if (op === OP_DELETE) return { op: 'delete', id: readDeleteJson(text) ?? (JSON.parse(text) as { id: string }).id };
    let record: { id: string; tags: unknown; payloadJson: string } | undefined = readRecordJson(text);
    let payload: Record<string, unknown> | undefined;
    if (!record) {
      const json = JSON.parse(text) as { id: string; tags: unknown; payload: unknown };
      payload = (json.payload ?? {}) as Record<string, unknown>;
      record = { id: json.id, tags: json.tags, payloadJson: JSON.stringify(payload) };
    }
    const vectorBytes = body.length - 5 - jsonLength;
    if (vectorBytes <= 0)
      return payload ? { op: 'upsert', record, vector: undefined, payload } : { op: 'upsert', record, vector: undefined };
    const floats = vectorBytes >> 2;
    if (this.vector.length !== floats) {
      this.vector = new Float32Array(floats);
      this.bytes = new Uint8Array(this.vector.buffer);
    }
    body.copy(this.bytes, 0, 5 + jsonLength, 5 + jsonLength + floats * 4);
    return payload ? { op: 'upsert', record, vector: this.vector, payload } : { op: 'upsert', record, vector: this.vector };
  }
}

/** An entry that owns its vector (a streamed one borrows the reader's scratch array). */
function owned(entry: LogEntry): LogEntry {
  return entry.op === 'upsert' && entry.vector ? { ...entry, vector: entry.vector.slice() } : entry;
}
