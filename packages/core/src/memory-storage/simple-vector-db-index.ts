import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KmError } from '../errors/km-error.js';
import { PayloadFields } from '../models/memory-record.js';
import { Bm25Index } from '../text-search/bm25-index.js';
import { partitionText } from './partition-text.js';
import type { CheckedRecord } from './record-input.js';
import { RecordLog, type LogEntry } from './record-log.js';
import { VectorIndex, type IndexEntry, type VectorIndexOptions } from './vector-index.js';

const CONNECTOR = 'simple-vector-db';
const INDEX_META = 'index.json';
/** The HNSW graph of an index, beside its log (see `SimpleVectorIndexOptions.hnsw`). */
export const HNSW_GRAPH_FILE = 'hnsw.graph';

/**
 * One SimpleVectorDb index in memory: its vectors and tags, a BM25 index over each record's
 * partition text (`payload.text`, rebuilt from the log on load: no second file), and the log
 * it was read from (its inode) and how far (bytes).
 */
export interface LoadedIndex {
  vectors: VectorIndex;
  words: Bm25Index;
  log: RecordLog | undefined;
  ino: number;
  applied: number;
}

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
  text: string = partitionText(payloadJson),
): void {
  loaded.vectors.upsert(id, vector, tags, payloadJson);
  loaded.words.add(id, text);
}

/** Removes a record from the in-memory views. */
export function dropRecord(loaded: LoadedIndex, id: string): void {
  loaded.vectors.delete(id);
  loaded.words.remove(id);
}

/**
 * Applies one log entry (a load, or another process's writes) to the in-memory views; the
 * entry's vector is copied (it may be a reader's scratch array).
 */
export function applyEntry(loaded: LoadedIndex, e: LogEntry): void {
  if (e.op === 'delete') {
    if (loaded.vectors.has(e.id)) dropRecord(loaded, e.id);
  } else if (e.vector && e.vector.length === loaded.vectors.dimensions) {
    const text = e.payload ? textOf(e.payload) : mayHaveText(e.record.payloadJson) ? partitionText(e.record.payloadJson) : '';
    putRecord(loaded, e.record.id, e.vector, e.record.tags as IndexEntry['tags'], e.record.payloadJson, text);
  }
}

/** False when a payload's JSON cannot hold a `text` field (no `"text"`, no escapes): no need to parse it. */
function mayHaveText(payloadJson: string): boolean {
  return payloadJson.includes(`"${PayloadFields.text}"`) || payloadJson.includes('\\u');
}

/** The partition text of a parsed payload, as {@link partitionText} reads it from JSON. */
function textOf(payload: Record<string, unknown>): string {
  const text = payload[PayloadFields.text];
  return typeof text === 'string' ? text : '';
}

/**
 * Reads an index folder; undefined when it is not (yet) an index. Only the process that opens
 * the index at start-up repairs a torn tail (`repair`); a follower reads complete entries and
 * leaves the rest to the writer.
 */
export async function readIndexFolder(
  folder: string,
  durable: boolean,
  repair: boolean,
  options: VectorIndexOptions = {},
): Promise<LoadedIndex | undefined> {
  let meta: { vectorSize?: unknown };
  try {
    meta = JSON.parse(await readFile(join(folder, INDEX_META), 'utf8')) as { vectorSize?: unknown };
  } catch {
    return undefined; // not an index folder, or an index whose creation never finished
  }
  if (typeof meta.vectorSize !== 'number') {
    throw new KmError('storage_corrupt', `${join(folder, INDEX_META)} has no vector size`, { connector: CONNECTOR });
  }
  const log = new RecordLog(folder, durable);
  const loaded = emptyIndex(meta.vectorSize, log, 0, 0, options);
  const apply = (entry: LogEntry) => applyEntry(loaded, entry);
  // Entries stream from the file straight into the views: no list of entries, no copy of each vector.
  const read = repair ? await log.loadEach(apply) : await log.readEachFrom(0, apply);
  loaded.ino = read.ino;
  loaded.applied = read.end;
  log.deadEntries = read.entries - loaded.vectors.size;
  await loaded.vectors.startAnn();
  return loaded;
}

/** Creates an index folder (its metadata written atomically) and its empty in-memory views. */
export async function createIndexFolder(
  folder: string | undefined,
  vectorSize: number,
  durable: boolean,
  options: VectorIndexOptions = {},
): Promise<LoadedIndex> {
  let log: RecordLog | undefined;
  if (folder) {
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `${INDEX_META}.tmp`);
    await writeFile(temp, JSON.stringify({ vectorSize, format: 1 }));
    await rename(temp, join(folder, INDEX_META));
    log = new RecordLog(folder, durable);
  }
  const position = await log?.position();
  return emptyIndex(vectorSize, log, position?.ino ?? 0, position?.size ?? 0, options);
}

/**
 * Brings a view up to date with the log on disk (writes of other processes); the caller holds
 * the index's lock. Returns the view to keep: the same one, a fresh one (new to this process,
 * or compacted by another one), or undefined (not an index, or deleted by another process).
 */
export async function catchUpIndex(
  folder: string,
  loaded: LoadedIndex | undefined,
  options: VectorIndexOptions = {},
): Promise<LoadedIndex | undefined> {
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

/** Records how far the view has read after this process appended, when nobody wrote in between. */
export function advance(loaded: LoadedIndex, written: { end: number; length: number; ino: number }): void {
  if (written.end < 0) return;
  if (loaded.ino === 0 && loaded.applied === 0) loaded.ino = written.ino; // the first write created the log
  if (written.ino === loaded.ino && written.end - written.length === loaded.applied) loaded.applied = written.end;
}

/** Rewrites the log with only the live records once dead entries outnumber them (and 1000). */
export async function compactIfNeeded(loaded: LoadedIndex): Promise<void> {
  const log = loaded.log;
  if (!log || log.deadEntries < Math.max(1000, loaded.vectors.size)) return;
  const entries: LogEntry[] = [];
  for (const entry of loaded.vectors.all()) {
    entries.push({
      op: 'upsert',
      record: { id: entry.id, tags: entry.tags, payloadJson: entry.payloadJson },
      vector: loaded.vectors.vectorOf(entry),
    });
  }
  await log.rewrite(entries);
  const position = await log.position();
  loaded.ino = position?.ino ?? 0;
  loaded.applied = position?.size ?? 0;
}

/** The log entry of an upsert. */
export function toLogEntry(r: CheckedRecord): LogEntry {
  return {
    op: 'upsert',
    record: { id: r.id, tags: r.tags, payloadJson: r.payloadJson },
    vector: r.vector instanceof Float32Array ? r.vector : Float32Array.from(r.vector),
  };
}

function emptyIndex(
  vectorSize: number,
  log: RecordLog | undefined,
  ino: number,
  applied: number,
  options: VectorIndexOptions,
): LoadedIndex {
  const vectors = new VectorIndex(vectorSize, options);
  // Every record is in both views: the vectors count the documents, blank ones included.
  return { vectors, words: new Bm25Index({ documentCount: () => vectors.size }), log, ino, applied };
}
