import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexNotFoundError, KmError } from '../errors/km-error.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { cloneTags } from '../models/tag-collection.js';
import { listIndexFolders } from './index-folders.js';
import { LogBackedDriver, type LogBackedDriverOptions } from './log-backed-driver.js';
import type { DriverList, DriverSearch, MemoryDbDriver } from './memory-db-driver.js';
import type { CheckedRecord } from './record-input.js';
import { RecordLog, type LogEntry } from './record-log.js';
import { VectorIndex, type IndexEntry } from './vector-index.js';

const CONNECTOR = 'simple-vector-db';
const INDEX_META = 'index.json';

/** Options of {@link SimpleVectorDbDriver}. */
export type SimpleVectorDbDriverOptions = LogBackedDriverOptions;

interface LoadedIndex {
  vectors: VectorIndex;
  log: RecordLog | undefined;
  /** The log file this view was read from (its inode) and how far (bytes). */
  ino: number;
  applied: number;
}

/**
 * The driver of {@link SimpleVectorDb}: exact top-k cosine search over normalised vectors kept
 * in contiguous WebAssembly memory and scored with SIMD, a tag index for filters, and (with a
 * directory) an append-only checksummed log per index that survives restarts and crashes.
 *
 * Several processes may open the same directory: reads first apply what other processes
 * appended to the log (one `stat` per read when nothing changed) and reload after another
 * process compacted it. One process at a time may write an index.
 */
export class SimpleVectorDbDriver extends LogBackedDriver<LoadedIndex> implements MemoryDbDriver {
  readonly name = CONNECTOR;
  readonly capabilities = { createsIndexOnUpsert: true };

  async vectorSize(name: string): Promise<number | undefined> {
    await this.ready();
    return (await this.refresh(name))?.vectors.dimensions;
  }

  async createIndex(name: string, vectorSize: number): Promise<void> {
    await this.ready();
    await this.mutex.run(name, () => this.create(name, vectorSize));
  }

  async listIndexes(): Promise<string[]> {
    await this.ready();
    if (this.directory) {
      const names = new Set([...this.indexes.keys(), ...(await listIndexFolders(this.directory))]);
      for (const name of names) await this.refresh(name);
    }
    return [...this.indexes.keys()];
  }

  async upsertBatch(name: string, records: CheckedRecord[]): Promise<void> {
    await this.ready();
    await this.mutex.run(name, async () => {
      const loaded = await this.catchUp(name);
      if (!loaded) throw new IndexNotFoundError(name, { connector: CONNECTOR }); // deleted by another process
      for (const r of records) this.checkSize(name, loaded.vectors, r.vector.length);
      if (loaded.log) this.advance(loaded, await loaded.log.append(records.map(toLogEntry)));
      for (const r of records) {
        if (loaded.log && loaded.vectors.has(r.id)) loaded.log.deadEntries++;
        loaded.vectors.upsert(r.id, r.vector, r.tags, r.payloadJson);
      }
      await this.compactIfNeeded(loaded);
    });
  }

  async search(name: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const loaded = await this.loaded(name);
    this.checkSize(name, loaded.vectors, query.vector!.length);
    const { filters, minRelevance, limit } = query;
    const results = loaded.vectors.search(query.vector!, { filters, minRelevance, limit });
    return results.map(([entry, score]) => [this.toRecord(loaded.vectors, entry, query.withEmbeddings), score]);
  }

  async *list(name: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const loaded = await this.loaded(name);
    for (const entry of loaded.vectors.list(query.filters, query.limit ?? 0))
      yield this.toRecord(loaded.vectors, entry, query.withEmbeddings);
  }

  async delete(name: string, id: string): Promise<void> {
    await this.ready();
    await this.mutex.run(name, async () => {
      const loaded = await this.catchUp(name);
      if (!loaded || !loaded.vectors.has(id)) return;
      if (loaded.log) this.advance(loaded, await loaded.log.append([{ op: 'delete', id }]));
      loaded.vectors.delete(id);
      if (loaded.log) loaded.log.deadEntries += 2;
      await this.compactIfNeeded(loaded);
    });
  }

  /** Number of records in an index (0 when missing). */
  async count(name: string): Promise<number> {
    await this.ready();
    return (await this.refresh(name))?.vectors.size ?? 0;
  }

  /** @internal The in-memory index, for benchmarks. */
  vectorIndex(name: string): VectorIndex | undefined {
    return this.indexes.get(name)?.vectors;
  }

  /** The index, up to date with its log; IndexNotFoundError when it does not exist. */
  private async loaded(name: string): Promise<LoadedIndex> {
    await this.ready();
    const loaded = await this.refresh(name);
    if (!loaded) throw new IndexNotFoundError(name, { connector: CONNECTOR });
    return loaded;
  }

  protected loadIndex(name: string): Promise<LoadedIndex | undefined> {
    return this.readIndex(name, true);
  }

  /** Reads an index folder; undefined when it is not (yet) an index. */
  private async readIndex(name: string, repair: boolean): Promise<LoadedIndex | undefined> {
    const folder = join(this.directory!, name);
    let meta: { vectorSize?: unknown };
    try {
      meta = JSON.parse(await readFile(join(folder, INDEX_META), 'utf8')) as { vectorSize?: unknown };
    } catch {
      return undefined; // not an index folder, or an index whose creation never finished
    }
    if (typeof meta.vectorSize !== 'number') {
      throw new KmError('storage_corrupt', `${join(folder, INDEX_META)} has no vector size`, { connector: CONNECTOR });
    }
    const vectors = new VectorIndex(meta.vectorSize);
    const log = new RecordLog(folder, this.durable);
    // Only the process that opens the index at start-up repairs a torn tail; a follower
    // reads complete entries and leaves the rest to the writer.
    let entries: LogEntry[];
    let loaded: LoadedIndex;
    if (repair) {
      entries = await log.load();
      this.reportCut(name, log);
      const position = await log.position();
      loaded = { vectors, log, ino: position?.ino ?? 0, applied: position?.size ?? 0 };
    } else {
      const read = await log.readFrom(0);
      entries = read.entries;
      loaded = { vectors, log, ino: read.ino, applied: read.end };
    }
    this.apply(loaded, entries);
    log.deadEntries = entries.length - vectors.size;
    return loaded;
  }

  private apply(loaded: LoadedIndex, entries: readonly LogEntry[]): void {
    const size = loaded.vectors.dimensions;
    for (const e of entries) {
      if (e.op === 'delete') {
        if (loaded.vectors.has(e.id)) loaded.vectors.delete(e.id);
      } else if (e.vector && e.vector.length === size) {
        loaded.vectors.upsert(e.record.id, e.vector, e.record.tags as IndexEntry['tags'], e.record.payloadJson);
      }
    }
  }

  /** Brings an index up to date with its log on disk (writes of other processes), under the index's lock. */
  private refresh(name: string): Promise<LoadedIndex | undefined> {
    if (!this.directory) return Promise.resolve(this.indexes.get(name));
    return this.mutex.run(name, () => this.catchUp(name));
  }

  /** {@link refresh} without taking the lock (the caller holds it). */
  private async catchUp(name: string): Promise<LoadedIndex | undefined> {
    const loaded = this.indexes.get(name);
    if (!this.directory) return loaded;
    const position = await (loaded?.log ?? new RecordLog(join(this.directory, name), false)).position();
    if (loaded?.log && position && position.ino === loaded.ino && position.size >= loaded.applied) {
      if (position.size === loaded.applied) return loaded; // nothing new
      const { entries, end } = await loaded.log.readFrom(loaded.applied);
      this.apply(loaded, entries);
      loaded.applied = end;
      return loaded;
    }
    if (loaded && !position) {
      // No log: an index created empty, or one another process deleted.
      try {
        await stat(join(this.directory, name, INDEX_META));
        return loaded;
      } catch {
        await loaded.log?.close();
        this.indexes.delete(name);
        return undefined;
      }
    }
    // New to this process, or compacted by another one: read it again.
    await loaded?.log?.close();
    const fresh = await this.readIndex(name, false);
    if (fresh) this.indexes.set(name, fresh);
    else this.indexes.delete(name);
    return fresh;
  }

  /** Records how far the view has read after this process appended, when nobody wrote in between. */
  private advance(loaded: LoadedIndex, written: { end: number; length: number; ino: number }): void {
    if (written.end < 0) return;
    if (loaded.ino === 0 && loaded.applied === 0) loaded.ino = written.ino; // the first write created the log
    if (written.ino === loaded.ino && written.end - written.length === loaded.applied) loaded.applied = written.end;
  }

  private async create(name: string, vectorSize: number): Promise<LoadedIndex> {
    const existing = this.indexes.get(name);
    if (existing) {
      this.checkSize(name, existing.vectors, vectorSize);
      return existing;
    }
    let log: RecordLog | undefined;
    if (this.directory) {
      const folder = join(this.directory, name);
      await mkdir(folder, { recursive: true });
      const temp = join(folder, `${INDEX_META}.tmp`);
      await writeFile(temp, JSON.stringify({ vectorSize, format: 1 }));
      await rename(temp, join(folder, INDEX_META));
      log = new RecordLog(folder, this.durable);
    }
    const position = await log?.position();
    const loaded: LoadedIndex = { vectors: new VectorIndex(vectorSize), log, ino: position?.ino ?? 0, applied: position?.size ?? 0 };
    this.indexes.set(name, loaded);
    return loaded;
  }

  private checkSize(name: string, vectors: VectorIndex, size: number): void {
    if (size !== vectors.dimensions) {
      throw new KmError('vector_size_mismatch', `index "${name}" has vector size ${vectors.dimensions}, got ${size}`, {
        connector: CONNECTOR,
      });
    }
  }

  private toRecord(vectors: VectorIndex, entry: IndexEntry, withEmbeddings = false): MemoryRecord {
    return {
      id: entry.id,
      vector: withEmbeddings ? vectors.vectorOf(entry) : new Float32Array(0),
      tags: cloneTags(entry.tags),
      payload: JSON.parse(entry.payloadJson) as Record<string, unknown>,
    };
  }

  private async compactIfNeeded(loaded: LoadedIndex): Promise<void> {
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
}

function toLogEntry(r: CheckedRecord): LogEntry {
  return {
    op: 'upsert',
    record: { id: r.id, tags: r.tags, payloadJson: r.payloadJson },
    vector: r.vector instanceof Float32Array ? r.vector : Float32Array.from(r.vector),
  };
}
