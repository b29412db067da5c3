import { mkdir, open, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EngineError } from './engine-error.js';
import { CODE_ENCODING } from './int8-codes.js';
import { BaseFile, baseFilesSupported, writeBaseFile } from './record-base-file.js';
import { RecordLog, type LogEntry } from './record-log.js';
import type { Tags } from './types.js';
import { partitionText, TEXT_FIELD } from './util.js';
import { VectorIndex, type IndexEntry, type VectorIndexOptions } from './vector-index.js';

const INDEX_META = 'index.json';
/** The records as of the last checkpoint, column by column (see `record-base-file.ts`); the log holds the changes since. */
export const BASE_FILE = 'records.base';
/** index.json `format`: 1, the log alone; 2, a base file may sit beside the log (older versions would ignore it). */
const FORMAT_WITH_BASE = 2;
/** Attempts at reading a base and its log as one pair while another process checkpoints. */
const PAIR_ATTEMPTS = 10;
/** The HNSW graph of an index, beside its log (see `SimpleVectorIndexOptions.hnsw`). */
export const HNSW_GRAPH_FILE = 'hnsw.graph';

/** A record as the engine stores it: the payload is JSON text, kept as given. */
export interface EngineRecord {
  id: string;
  vector: Float32Array | number[];
  tags: Tags;
  payloadJson: string;
}

/**
 * A view of the records' text (`payload.text`) kept beside the vectors, e.g. a BM25 index for
 * lexical search: told of every record put and dropped, rebuilt from the stored records on
 * load (no file of its own).
 */
export interface TextView {
  add(id: string, text: string): void;
  remove(id: string): void;
}

/** Makes the text view of an index; `documentCount` counts its records (blank ones included). */
export type TextViewFactory<W extends TextView> = (documentCount: () => number) => W;

/** The text view of an index that keeps none (the text is then never read). */
export const NO_TEXT_VIEW: TextView = Object.freeze({ add() {}, remove() {} });

/** Settings of an index folder: its vector index's, and its text view. */
export interface IndexFolderOptions<W extends TextView = TextView> extends VectorIndexOptions {
  /** Makes the index's text view. @default none ({@link NO_TEXT_VIEW}) */
  textView?: TextViewFactory<W> | undefined;
}

/**
 * One index in memory: its vectors and tags, a text view over each record's text
 * (`payload.text`, rebuilt from the log on load: no second file), and the log it was read from
 * (its inode) and how far (bytes).
 */
export interface LoadedIndex<W extends TextView = TextView> {
  vectors: VectorIndex;
  words: W;
  /** The index's folder (none: volatile). */
  folder: string | undefined;
  log: RecordLog | undefined;
  ino: number;
  applied: number;
  /** Records in the base file as of the last checkpoint (0: none). */
  baseRecords: number;
  /** Entries appended to the log since the base was written (or since it was read). */
  logEntries: number;
  /** index.json's format (see {@link FORMAT_WITH_BASE}). */
  format: number;
  /** True once this process wrote to the index (only the writer checkpoints on close). */
  wrote: boolean;
  /** After a failed checkpoint: the log entries to reach before the next attempt. */
  retryAt: number;
}

/** When the log is folded into a new base file (see {@link checkpointIfDue}). */
export interface CheckpointPolicy {
  /** Fold once the log holds this many entries and as many as the base has records. @default 65536 */
  entries: number;
}

/** The default {@link CheckpointPolicy}. */
export const DEFAULT_CHECKPOINT: CheckpointPolicy = { entries: 65_536 };

/**
 * Writes a record into the in-memory views (vectors, tags and words). `text` is its partition
 * text when the caller already has it (else read from `payloadJson`).
 */
export function putRecord(
  loaded: LoadedIndex,
  id: string,
  vector: ArrayLike<number>,
  tags: IndexEntry['tags'],
  payloadJson: string,
  text?: string,
): void {
  loaded.vectors.upsert(id, vector, tags, payloadJson);
  if (loaded.words !== NO_TEXT_VIEW) loaded.words.add(id, text ?? partitionText(payloadJson));
}

/** Removes a record from the in-memory views. */
export function dropRecord(loaded: LoadedIndex, id: string): void {
  loaded.vectors.delete(id);
  if (loaded.words !== NO_TEXT_VIEW) loaded.words.remove(id);
}

/**
 * Applies one log entry (a load, or another process's writes) to the in-memory views; the
 * entry's vector is copied (it may be a reader's scratch array).
 */
export function applyEntry(loaded: LoadedIndex, e: LogEntry): void {
  if (e.op === 'delete') {
    if (loaded.vectors.has(e.id)) dropRecord(loaded, e.id);
  } else if (e.vector && e.vector.length === loaded.vectors.dimensions) {
    const text =
      loaded.words === NO_TEXT_VIEW
        ? ''
        : e.payload
          ? textOf(e.payload)
          : mayHaveText(e.record.payloadJson)
            ? partitionText(e.record.payloadJson)
            : '';
    putRecord(loaded, e.record.id, e.vector, e.record.tags as IndexEntry['tags'], e.record.payloadJson, text);
  }
}

/** False when a payload's JSON cannot hold a `text` field (no `"text"`, no escapes): no need to parse it. */
export function mayHaveText(payloadJson: string): boolean {
  return payloadJson.includes(`"${TEXT_FIELD}"`) || payloadJson.includes('\\u');
}

/** The partition text of a parsed payload, as {@link partitionText} reads it from JSON. */
function textOf(payload: Record<string, unknown>): string {
  const text = payload[TEXT_FIELD];
  return typeof text === 'string' ? text : '';
}

/**
 * Reads an index folder; undefined when it is not (yet) an index. Only the process that opens
 * the index at start-up repairs a torn tail (`repair`); a follower reads complete entries and
 * leaves the rest to the writer.
 */
export async function readIndexFolder<W extends TextView = TextView>(
  folder: string,
  durable: boolean,
  repair: boolean,
  options: IndexFolderOptions<W> = {},
): Promise<LoadedIndex<W> | undefined> {
  let meta: { vectorSize?: unknown; format?: unknown };
  try {
    meta = JSON.parse(await readFile(join(folder, INDEX_META), 'utf8')) as { vectorSize?: unknown; format?: unknown };
  } catch {
    return undefined; // not an index folder, or an index whose creation never finished
  }
  if (typeof meta.vectorSize !== 'number') {
    throw new EngineError('storage_corrupt', `${join(folder, INDEX_META)} has no vector size`, { ofStore: true });
  }
  const format = typeof meta.format === 'number' ? meta.format : 1;
  if (format > FORMAT_WITH_BASE) {
    throw new EngineError('storage_corrupt', `${join(folder, INDEX_META)} has format ${format}, written by a newer version of km`, {
      ofStore: true,
    });
  }
  for (let attempt = 1; ; attempt++) {
    const loaded = await readPair(folder, meta.vectorSize, durable, repair, format, options);
    if (loaded) return loaded;
    if (attempt === PAIR_ATTEMPTS) {
      throw new EngineError('storage_corrupt', `${folder} kept changing while it was read (another process checkpointing it)`, {
        ofStore: true,
      });
    }
  }
}

/**
 * Reads the base file (if any) and then the log of an index folder; undefined when another
 * process replaced the log meanwhile (a checkpoint), so the two may not belong together. A base
 * and the log that was current when the base was opened always do: a checkpoint renames its
 * base into place before it empties the log, and replaying a log over the base written from it
 * changes nothing (each entry sets a record to what it already is). Without the check, a base
 * missed just before a checkpoint wrote it and the emptied log read after would look empty.
 */
async function readPair<W extends TextView>(
  folder: string,
  vectorSize: number,
  durable: boolean,
  repair: boolean,
  format: number,
  options: IndexFolderOptions<W>,
): Promise<LoadedIndex<W> | undefined> {
  const log = new RecordLog(folder, durable);
  const before = (await log.position())?.ino ?? 0;
  const base = await BaseFile.open(join(folder, BASE_FILE));
  const loaded = emptyIndex(folder, vectorSize, log, 0, 0, options);
  loaded.format = format;
  try {
    if (((await log.position())?.ino ?? 0) !== before) return undefined;
    if (base) await loadBase(loaded, base);
  } finally {
    await base?.close();
  }
  const apply = (entry: LogEntry) => applyEntry(loaded, entry);
  // Entries stream from the file straight into the views: no list of entries, no copy of each vector.
  const read = repair ? await log.loadEach(apply) : await log.readEachFrom(0, apply);
  if (read.ino !== before) {
    await loaded.vectors.closeAnn(false);
    return undefined;
  }
  loaded.ino = read.ino;
  loaded.applied = read.end;
  loaded.logEntries = read.entries;
  log.deadEntries = loaded.baseRecords + read.entries - loaded.vectors.size;
  await loaded.vectors.startAnn();
  return loaded;
}

/** Loads a base file into a fresh index's views. */
async function loadBase(loaded: LoadedIndex, file: BaseFile): Promise<void> {
  const { header } = file;
  const vectors = loaded.vectors;
  if (header.dimensions !== vectors.dimensions) {
    throw new EngineError('storage_corrupt', `${file.path} holds vectors of size ${header.dimensions}, its index ${vectors.dimensions}`, {
      ofStore: true,
    });
  }
  const { base, postings } = await file.readColumns();
  const codes = header.codes?.encoding === CODE_ENCODING ? header.codes : undefined;
  try {
    await vectors.loadBase(base, postings, {
      rowBytes: header.rowBytes,
      readRows: (from, into) => file.readRegion('rows', from, into),
      codes: codes && { rowBytes: codes.rowBytes, read: (from, into) => file.readRegion('codes', from, into) },
    });
  } catch (error) {
    // The segments refuse what cannot be a stored row (a code row's scale that is not a finite
    // number >= 0): the file's unchecked sections are damaged.
    if (!(error instanceof RangeError)) throw error;
    throw new EngineError('storage_corrupt', `${file.path} cannot be read: ${error.message}`, { ofStore: true, cause: error });
  }
  for (let slot = 0; slot < base.count && loaded.words !== NO_TEXT_VIEW; slot++) {
    if (base.hasText[slot] === 1) loaded.words.add(base.idAt(slot), partitionText(base.payloadAt(slot)));
  }
  loaded.baseRecords = base.count;
}

/** Creates an index folder (its metadata written atomically) and its empty in-memory views. */
export async function createIndexFolder<W extends TextView = TextView>(
  folder: string | undefined,
  vectorSize: number,
  durable: boolean,
  options: IndexFolderOptions<W> = {},
): Promise<LoadedIndex<W>> {
  let log: RecordLog | undefined;
  if (folder) {
    await mkdir(folder, { recursive: true });
    await writeMeta(folder, vectorSize, 1);
    log = new RecordLog(folder, durable);
  }
  const position = await log?.position();
  return emptyIndex(folder, vectorSize, log, position?.ino ?? 0, position?.size ?? 0, options);
}

/**
 * Brings a view up to date with the log on disk (writes of other processes); the caller holds
 * the index's lock. Returns the view to keep: the same one, a fresh one (new to this process,
 * or compacted by another one), or undefined (not an index, or deleted by another process).
 */
export async function catchUpIndex<W extends TextView = TextView>(
  folder: string,
  loaded: LoadedIndex<W> | undefined,
  options: IndexFolderOptions<W> = {},
): Promise<LoadedIndex<W> | undefined> {
  const position = await (loaded?.log ?? new RecordLog(folder, false)).position();
  if (loaded?.log && position && position.ino === loaded.ino && position.size >= loaded.applied) {
    if (position.size === loaded.applied) return loaded; // nothing new
    const log = loaded.log;
    // Entries apply while the log is read: searches running on worker threads finish first.
    const { end } = await loaded.vectors.exclusive(() => log.readEachFrom(loaded.applied, (entry) => applyEntry(loaded, entry)));
    loaded.applied = end;
    await loaded.vectors.startAnn();
    return loaded;
  }
  if (loaded && !position) {
    // No log: an index created empty, or one another process deleted.
    try {
      await stat(join(folder, INDEX_META));
      return loaded;
    } catch {
      await loaded.vectors.closeAnn(false);
      await loaded.log?.close();
      return undefined;
    }
  }
  await loaded?.vectors.closeAnn(false);
  await loaded?.log?.close();
  return readIndexFolder(folder, false, false, options);
}

/**
 * Writes records (their vector sizes checked by the caller, who holds the index's lock): appended
 * to the log first (when the index has one), then put into the views once the scans running on
 * worker threads finished (rows must not move under them), then the HNSW build resumed.
 */
export async function upsertRecords(loaded: LoadedIndex, records: readonly EngineRecord[]): Promise<void> {
  if (loaded.log) {
    advance(loaded, await loaded.log.append(records.map(toLogEntry)));
    loaded.logEntries += records.length;
    loaded.wrote = true;
  }
  await loaded.vectors.exclusive(() => {
    for (const r of records) {
      if (loaded.log && loaded.vectors.has(r.id)) loaded.log.deadEntries++;
      putRecord(loaded, r.id, r.vector, r.tags, r.payloadJson);
    }
  });
  await loaded.vectors.startAnn();
}

/** Deletes a record (logged first, when the index has a log); false when there is none. The caller holds the index's lock. */
export async function deleteRecord(loaded: LoadedIndex, id: string): Promise<boolean> {
  if (!loaded.vectors.has(id)) return false;
  if (loaded.log) {
    advance(loaded, await loaded.log.append([{ op: 'delete', id }]));
    loaded.logEntries++;
    loaded.wrote = true;
  }
  await loaded.vectors.exclusive(() => dropRecord(loaded, id));
  if (loaded.log) loaded.log.deadEntries += 2;
  return true;
}

/** Records how far the view has read after this process appended, when nobody wrote in between. */
export function advance(loaded: LoadedIndex, written: { end: number; length: number; ino: number }): void {
  if (written.end < 0) return;
  if (loaded.ino === 0 && loaded.applied === 0) loaded.ino = written.ino; // the first write created the log
  if (written.ino === loaded.ino && written.end - written.length === loaded.applied) loaded.applied = written.end;
}

/**
 * Folds the log into a new base file when it is due: dead entries outnumber the live records
 * (and 1000); the log holds `policy.entries` entries and as many as the base has records (so
 * loading replays at most about half of the records from the log, and each record is rewritten
 * a bounded number of times as an index grows); or, on `closing`, the log holds an eighth of
 * `policy.entries` and a quarter as many entries as the base has records (a restart then reads
 * the base). After a failure (a full disk; the log stays as it was) the next attempt on a write
 * waits for another eighth of `policy.entries` (and 1000) entries; closing tries again at once.
 * The caller holds the index's lock.
 */
export async function checkpointIfDue(loaded: LoadedIndex, policy: CheckpointPolicy, closing = false): Promise<void> {
  const log = loaded.log;
  if (!log || (!closing && loaded.logEntries < loaded.retryAt)) return;
  const entries = loaded.logEntries;
  const due =
    log.deadEntries >= Math.max(1000, loaded.vectors.size) ||
    entries >= Math.max(policy.entries, loaded.baseRecords) ||
    (closing && entries > 0 && entries >= Math.max(policy.entries / 8, loaded.baseRecords / 4));
  if (!due) return;
  try {
    await checkpoint(loaded);
    loaded.retryAt = 0;
  } catch (error) {
    loaded.retryAt = entries + Math.max(1000, policy.entries / 8);
    throw error;
  }
}

/**
 * Writes every live record to a new base file and empties the log: the base is written to a
 * temporary file, synced and renamed into place before the log is replaced by an empty one, so
 * a crash in between leaves the new base and the old log, which replays to the same records.
 * Without base files (a big-endian machine) the log is rewritten with the live records instead.
 */
export async function checkpoint(loaded: LoadedIndex): Promise<void> {
  const log = loaded.log;
  const folder = loaded.folder;
  if (!log || !folder) return;
  if (baseFilesSupported()) {
    if (loaded.format < FORMAT_WITH_BASE) {
      // Marked first: an older version would read the log alone and miss the base's records.
      await writeMeta(folder, loaded.vectors.dimensions, FORMAT_WITH_BASE);
      loaded.format = FORMAT_WITH_BASE;
    }
    await writeBaseFile(join(folder, BASE_FILE), loaded.vectors.baseSource(mayHaveText));
    await syncFolder(folder);
    await log.rewrite([]);
    loaded.baseRecords = loaded.vectors.size;
  } else {
    const entries: LogEntry[] = [];
    for (const entry of loaded.vectors.all()) {
      entries.push({
        op: 'upsert',
        record: { id: entry.id, tags: entry.tags, payloadJson: entry.payloadJson },
        vector: loaded.vectors.vectorOf(entry),
      });
    }
    await log.rewrite(entries);
  }
  await syncFolder(folder);
  loaded.logEntries = 0;
  log.deadEntries = 0;
  const position = await log.position();
  loaded.ino = position?.ino ?? 0;
  loaded.applied = position?.size ?? 0;
}

/** Makes the renames in a folder durable. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes index.json atomically. */
async function writeMeta(folder: string, vectorSize: number, format: number): Promise<void> {
  const temp = join(folder, `${INDEX_META}.tmp`);
  await writeFile(temp, JSON.stringify({ vectorSize, format }));
  await rename(temp, join(folder, INDEX_META));
}

/** The log entry of an upsert. */
export function toLogEntry(r: EngineRecord): LogEntry {
  return {
    op: 'upsert',
    record: { id: r.id, tags: r.tags, payloadJson: r.payloadJson },
    vector: r.vector instanceof Float32Array ? r.vector : Float32Array.from(r.vector),
  };
}

function emptyIndex<W extends TextView>(
  folder: string | undefined,
  vectorSize: number,
  log: RecordLog | undefined,
  ino: number,
  applied: number,
  options: IndexFolderOptions<W>,
): LoadedIndex<W> {
  const { textView, ...vectorOptions } = options;
  const vectors = new VectorIndex(vectorSize, vectorOptions);
  // Every record is in both views: the vectors count the documents, blank ones included.
  const words = (textView?.(() => vectors.size) ?? NO_TEXT_VIEW) as W;
  return { vectors, words, folder, log, ino, applied, baseRecords: 0, logEntries: 0, format: 1, wrote: false, retryAt: 0 };
}
