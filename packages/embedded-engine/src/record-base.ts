import type { Tags } from './types.js';

/**
 * Byte strings stored back to back, record by record, read from a base file: `offsets[i]` to
 * `offsets[i + 1]` are record i's bytes. The bytes come in chunks (a Buffer holds at most a few
 * GB), each holding whole records; `starts[c]` is the offset where chunk c begins.
 */
export class BlobColumn {
  constructor(
    readonly offsets: Float64Array,
    private readonly chunks: readonly Buffer[],
    private readonly starts: readonly number[],
  ) {}

  /** Record i's bytes as a view (no copy). */
  bytesAt(i: number): Buffer {
    const from = this.offsets[i]!;
    const to = this.offsets[i + 1]!;
    const c = this.chunkOf(from);
    const start = this.starts[c]!;
    return this.chunks[c]!.subarray(from - start, to - start);
  }

  /** Record i's bytes decoded as UTF-8. */
  textAt(i: number): string {
    const from = this.offsets[i]!;
    const c = this.chunkOf(from);
    const start = this.starts[c]!;
    return this.chunks[c]!.toString('utf8', from - start, this.offsets[i + 1]! - start);
  }

  /** True when record i's bytes equal `bytes[0..length)`. */
  equalsAt(i: number, bytes: Uint8Array, length: number): boolean {
    const from = this.offsets[i]!;
    if (this.offsets[i + 1]! - from !== length) return false;
    const c = this.chunkOf(from);
    const chunk = this.chunks[c]!;
    const at = from - this.starts[c]!;
    for (let k = 0; k < length; k++) if (chunk[at + k] !== bytes[k]) return false;
    return true;
  }

  private chunkOf(offset: number): number {
    const starts = this.starts;
    if (starts.length === 1) return 0;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** FNV-1a over `bytes[0..length)`: the hash of a record id in a base's id table. */
export function idHash(bytes: Uint8Array, length: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** Slots of an id table for `count` ids: a power of two at least twice as large (open addressing stays short). */
export function idTableSize(count: number): number {
  let size = 16;
  while (size < count * 2) size *= 2;
  return size;
}

/**
 * The records of a base file, read-only, off the JavaScript heap: record i (its slot once
 * loaded) has the id, tags (JSON) and payload (JSON) at i of each column, its vector's norm,
 * and whether its payload may hold partition text. Ids are found through an open-addressing
 * table of `slot + 1` (0: empty) probed linearly from {@link idHash} of the id's UTF-8 bytes.
 */
export class RecordBase {
  private scratch = Buffer.allocUnsafe(256);

  constructor(
    readonly count: number,
    readonly ids: BlobColumn,
    private readonly idTable: Uint32Array,
    readonly tags: BlobColumn,
    readonly payloads: BlobColumn,
    /** Each vector's norm as computed when it was written (float64: the vector read back is the row times it). */
    readonly norms: Float64Array,
    readonly hasText: Uint8Array,
  ) {}

  /** The slot of record `id`, or -1. */
  find(id: string): number {
    let length = this.scratch.write(id, 'utf8');
    if (length >= this.scratch.length - 4) {
      this.scratch = Buffer.allocUnsafe(Buffer.byteLength(id, 'utf8') + 16);
      length = this.scratch.write(id, 'utf8');
    }
    const table = this.idTable;
    const mask = table.length - 1;
    for (let at = idHash(this.scratch, length) & mask; ; at = (at + 1) & mask) {
      const entry = table[at]!;
      if (entry === 0) return -1;
      if (this.ids.equalsAt(entry - 1, this.scratch, length)) return entry - 1;
    }
  }

  idAt(slot: number): string {
    return this.ids.textAt(slot);
  }

  tagsAt(slot: number): Tags {
    return JSON.parse(this.tags.textAt(slot)) as Tags;
  }

  payloadAt(slot: number): string {
    return this.payloads.textAt(slot);
  }
}
