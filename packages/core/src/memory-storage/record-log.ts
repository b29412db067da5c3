import { mkdir, open, readFile, rename, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/** One entry of the log: an upsert carries the record (and its vector), a delete only the id. */
export type LogEntry =
  | { op: 'upsert'; record: { id: string; tags: unknown; payloadJson: string }; vector: Float32Array | undefined }
  | { op: 'delete'; id: string };

/** What `load()` cut from the end of a log: its size and the record ids it still names. */
export interface TornTail {
  bytes: number;
  /** Ids found in the cut bytes (upserts and deletes), in order, without duplicates; best effort. */
  recordIds: string[];
}

const OP_UPSERT = 1;
const OP_DELETE = 2;
const HEADER = 8; // body length u32 + crc32 u32

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
    let data: Buffer;
    try {
      data = await readFile(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const { entries, end } = parse(data);
    this.lastCut = undefined;
    if (end < data.length) {
      this.lastCut = { bytes: data.length - end, recordIds: salvageIds(data.subarray(end)) };
      await truncate(this.path, end);
    }
    return entries;
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
    let handle: FileHandle;
    try {
      handle = await open(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], end: offset, ino: 0 };
      throw error;
    }
    try {
      const { size, ino } = await handle.stat();
      if (size <= offset) return { entries: [], end: offset, ino };
      const data = Buffer.allocUnsafe(size - offset);
      const { bytesRead } = await handle.read(data, 0, data.length, offset);
      const parsed = parse(data.subarray(0, bytesRead));
      return { entries: parsed.entries, end: offset + parsed.end, ino };
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
    await handle.write(data);
    if (this.durable) await handle.datasync();
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

function parse(data: Buffer): { entries: LogEntry[]; end: number } {
  const entries: LogEntry[] = [];
  let offset = 0;
  while (offset + HEADER <= data.length) {
    const length = data.readUInt32LE(offset);
    const checksum = data.readUInt32LE(offset + 4);
    const end = offset + HEADER + length;
    if (length < 5 || end > data.length) break;
    const body = data.subarray(offset + HEADER, end);
    if (crc32(body) !== checksum) break;
    entries.push(decode(body));
    offset = end;
  }
  return { entries, end: offset };
}

/**
 * The record ids still readable in a torn or corrupt tail: every entry's JSON starts with
 * `{"id":"…"`, so the ids of entries cut short (and of any intact ones after a corrupt one)
 * can be read even when the entry cannot.
 */
export function salvageIds(tail: Buffer): string[] {
  const ids = new Set<string>();
  const marker = Buffer.from('{"id":"', 'utf8');
  for (let at = tail.indexOf(marker); at >= 0; at = tail.indexOf(marker, at + marker.length)) {
    const text = tail.subarray(at + marker.length - 1, at + marker.length - 1 + 4096).toString('utf8');
    const literal = /^"(?:[^"\\]|\\.)*"/.exec(text);
    if (!literal) continue; // the id itself was cut
    try {
      ids.add(JSON.parse(literal[0]) as string);
    } catch {
      // not a JSON string after all
    }
  }
  return [...ids];
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

function decode(body: Buffer): LogEntry {
  const op = body.readUInt8(0);
  const jsonLength = body.readUInt32LE(1);
  const json = JSON.parse(body.subarray(5, 5 + jsonLength).toString('utf8')) as { id: string; tags: unknown; payload: unknown };
  if (op === OP_DELETE) return { op: 'delete', id: json.id };
  const rest = body.subarray(5 + jsonLength);
  const vector = rest.length > 0 ? new Float32Array(rest.buffer.slice(rest.byteOffset, rest.byteOffset + rest.length)) : undefined;
  return { op: 'upsert', record: { id: json.id, tags: json.tags, payloadJson: JSON.stringify(json.payload ?? {}) }, vector };
}
