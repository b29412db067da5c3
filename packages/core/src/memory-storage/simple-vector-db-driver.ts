import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  catchUpIndex,
  checkpointIfDue,
  type CheckpointPolicy,
  createIndexFolder,
  DEFAULT_CHECKPOINT,
  deleteRecord,
  HNSW_GRAPH_FILE,
  hnswOptionsProblem,
  type IndexFolderOptions,
  type IndexHit,
  type LoadedIndex,
  type ParallelScanOptions,
  readIndexFolder,
  ScanPool,
  type SimpleVectorIndexOptions,
  upsertRecords,
  type VectorIndex,
} from '@km/embedded-engine';
import { IndexNotFoundError, KmError } from '../errors/km-error.js';
import { matchesFilters } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { cloneTags } from '../models/tag-collection.js';
import { Bm25Index } from '../text-search/bm25-index.js';
import type { Logger } from '../util/logger.js';
import { normalizeIndexName } from '../validation/index-name.js';
import { engineCall, fromEngineError } from './engine-errors.js';
import { listIndexFolders } from './index-folders.js';
import { LogBackedDriver, type LogBackedDriverOptions } from './log-backed-driver.js';
import type { DriverLexicalSearch, DriverList, DriverSearch, MemoryDbDriver } from './memory-db-driver.js';
import type { CheckedRecord } from './record-input.js';

/** One index: the engine's index folder, with a BM25 index of the records' partition text for lexical search. */
type LoadedIndexWithWords = LoadedIndex<Bm25Index>;

/** Every record is in both views: the vectors count the documents, blank ones included. */
const bm25View = (documentCount: () => number) => new Bm25Index({ documentCount });

const CONNECTOR = 'simple-vector-db';

/** Options of {@link SimpleVectorDbDriver}. */
export interface SimpleVectorDbDriverOptions extends LogBackedDriverOptions {
  /** Default quantisation of every index (see {@link SimpleVectorIndexOptions.quantization}). @default 'int8' */
  quantization?: 'none' | 'int8' | undefined;
  /** Default HNSW settings of every index (see {@link SimpleVectorIndexOptions.hnsw}). @default false */
  hnsw?: SimpleVectorIndexOptions['hnsw'] | undefined;
  /** Per-index overrides, keyed by index name as given (normalised like every index name). */
  indexes?: Record<string, SimpleVectorIndexOptions> | undefined;
  /** Worker threads that scan large indexes (0: every scan on the calling thread). @default {@link defaultScanThreads} */
  scanThreads?: number | undefined;
  /** Smallest index (records × dimensions) whose searches use the scan threads. @default {@link DEFAULT_PARALLEL_SCAN_THRESHOLD} */
  parallelScanThreshold?: number | undefined;
  /** @internal When logs are folded into base files (tests checkpoint small indexes). */
  checkpoint?: CheckpointPolicy | undefined;
}

/**
 * Records × dimensions from which a search goes to the scan threads: 2^25. Search p50 with 2
 * threads vs 1 on an idle 2-core machine: 32,768 × 384 equal (the message round trips and the
 * merge eat the gain), 65,536 × 384 -12%, 100k × 384 -16%, 1M × 384 -32%; with the cores busy
 * elsewhere the threads cost about 15% instead, so the threshold stays where the gain is clear.
 */
export const DEFAULT_PARALLEL_SCAN_THRESHOLD = 2 ** 25;

/** Scan threads when not configured: 2 with 2+ cores, none on a single core (no gain there, only overhead). */
export function defaultScanThreads(): number {
  return availableParallelism() > 1 ? 2 : 0;
}

/**
 * The driver of {@link SimpleVectorDb}: exact top-k cosine search over normalised vectors kept
 * in contiguous WebAssembly memory and scored with SIMD, a tag index for filters, a BM25 index of
 * the partition text for lexical search, and (with a directory) an append-only checksummed log
 * per index that survives restarts and crashes, folded at checkpoints into a columnar base file
 * (`records.base`, see `checkpointIfDue`) read straight into memory on open; the BM25 index is
 * rebuilt from the records' text on load.
 *
 * Several processes may open the same directory: reads first apply what other processes
 * appended to the log (one `stat` per read when nothing changed) and reload after another
 * process compacted it. One process at a time may write an index.
 */
export class SimpleVectorDbDriver extends LogBackedDriver<LoadedIndexWithWords> implements MemoryDbDriver {
  readonly name = CONNECTOR;
  readonly capabilities = { createsIndexOnUpsert: true };
  private readonly defaults: SimpleVectorIndexOptions;
  private readonly overrides = new Map<string, SimpleVectorIndexOptions>();
  private readonly scan: ParallelScanOptions | undefined;
  private readonly logger: Logger | undefined;
  private readonly checkpointPolicy: CheckpointPolicy;

  constructor(options: SimpleVectorDbDriverOptions = {}) {
    super(options);
    this.checkpointPolicy = options.checkpoint ?? DEFAULT_CHECKPOINT;
    this.defaults = { quantization: options.quantization ?? 'int8', hnsw: options.hnsw ?? false };
    for (const hnsw of [options.hnsw, ...Object.values(options.indexes ?? {}).map((o) => o.hnsw)]) {
      const problem = hnsw ? hnswOptionsProblem(hnsw) : undefined;
      if (problem) throw new KmError('invalid_argument', problem, { connector: CONNECTOR });
    }
    this.logger = options.logger;
    for (const [name, override] of Object.entries(options.indexes ?? {})) this.overrides.set(normalizeIndexName(name), override);
    const threads = options.scanThreads ?? defaultScanThreads();
    if (!Number.isInteger(threads) || threads < 0) {
      throw new KmError('invalid_argument', `scanThreads must be a whole number >= 0, got ${threads}`, { connector: CONNECTOR });
    }
    const threshold = options.parallelScanThreshold ?? DEFAULT_PARALLEL_SCAN_THRESHOLD;
    if (!(threshold >= 0)) {
      throw new KmError('invalid_argument', `parallelScanThreshold must be >= 0, got ${threshold}`, { connector: CONNECTOR });
    }
    this.scan = threads > 0 ? { pool: new ScanPool(threads), threshold } : undefined;
  }

  /**
   * The settings of an index: the defaults, then its override; every index shares the scan
   * threads; its HNSW graph (if on) is saved in its folder.
   */
  private indexOptions(name: string): IndexFolderOptions<Bm25Index> {
    const annFile = this.directory ? join(this.directory, name, HNSW_GRAPH_FILE) : undefined;
    return { ...this.defaults, ...this.overrides.get(name), scan: this.scan, annFile, logger: this.logger, textView: bm25View };
  }

  vectorSize(name: string): Promise<number | undefined> {
    return engineCall(CONNECTOR, async () => {
      await this.ready();
      return (await this.refresh(name))?.vectors.dimensions;
    });
  }

  createIndex(name: string, vectorSize: number): Promise<void> {
    return engineCall(CONNECTOR, async () => {
      await this.ready();
      await this.mutex.run(name, () => this.create(name, vectorSize));
    });
  }

  listIndexes(): Promise<string[]> {
    return engineCall(CONNECTOR, async () => {
      await this.ready();
      if (this.directory) {
        const names = new Set([...this.indexes.keys(), ...(await listIndexFolders(this.directory))]);
        for (const name of names) await this.refresh(name);
      }
      return [...this.indexes.keys()];
    });
  }

  upsertBatch(name: string, records: CheckedRecord[]): Promise<void> {
    return engineCall(CONNECTOR, async () => {
      await this.ready();
      await this.mutex.run(name, async () => {
        const loaded = await this.catchUp(name);
        if (!loaded) throw new IndexNotFoundError(name, { connector: CONNECTOR }); // deleted by another process
        for (const r of records) this.checkSize(name, loaded.vectors, r.vector.length);
        await upsertRecords(loaded, records);
        await this.checkpointIfDue(name, loaded, false);
      });
    });
  }

  search(name: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    return engineCall(CONNECTOR, async () => {
      const loaded = await this.loaded(name);
      this.checkSize(name, loaded.vectors, query.vector!.length);
      const { filters, minRelevance, limit } = query;
      const results = await loaded.vectors.search(query.vector!, { filters, minRelevance, limit, withVectors: query.withEmbeddings });
      return results.map(([hit, score]): [MemoryRecord, number] => [this.toRecord(hit), score]);
    });
  }

  /** BM25 over the partition text of the records matching the filters (see `Bm25Index`). */
  lexicalSearch(name: string, query: DriverLexicalSearch): Promise<Array<[MemoryRecord, number]>> {
    return engineCall(CONNECTOR, async () => {
      const { vectors, words } = await this.loaded(name);
      const accept = query.filters.length === 0 ? undefined : (id: string) => matchesFilters(vectors.entry(id)!.tags, query.filters);
      return words
        .search(query.text, { limit: query.limit, accept })
        .map(([id, score]): [MemoryRecord, number] => [this.toRecord(vectors.hitOf(vectors.entry(id)!, query.withEmbeddings)), score]);
    });
  }

  async *list(name: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const { vectors } = await engineCall(CONNECTOR, () => this.loaded(name));
    // Copied before the first yield: writes may run while the caller iterates.
    const hits = vectors.list(query.filters, query.limit ?? 0).map((entry) => vectors.hitOf(entry, query.withEmbeddings));
    for (const hit of hits) yield this.toRecord(hit);
  }

  delete(name: string, id: string): Promise<void> {
    return engineCall(CONNECTOR, async () => {
      await this.ready();
      await this.mutex.run(name, async () => {
        const loaded = await this.catchUp(name);
        if (!loaded || !(await deleteRecord(loaded, id))) return;
        await this.checkpointIfDue(name, loaded, false);
      });
    });
  }

  /** Number of records in an index (0 when missing). */
  count(name: string): Promise<number> {
    return engineCall(CONNECTOR, async () => {
      await this.ready();
      return (await this.refresh(name))?.vectors.size ?? 0;
    });
  }

  /** Deletes an index (its HNSW build stopped first, its folder with its graph file removed). */
  override deleteIndex(name: string): Promise<void> {
    return engineCall(CONNECTOR, async () => {
      await this.ready();
      await this.indexes.get(name)?.vectors.closeAnn(false);
      await super.deleteIndex(name);
    });
  }

  /**
   * Stops the HNSW builds (saving changed graphs), folds each log that grew enough since its
   * base into a new base file (so the next start reads it; see `checkpointIfDue`), closes open
   * files and stops the scan threads; the instance must not be used afterwards. A checkpoint
   * that fails (a full disk) is reported and leaves the log as it was.
   */
  override close(): Promise<void> {
    return engineCall(CONNECTOR, async () => {
      for (const loaded of this.indexes.values()) await loaded.vectors.closeAnn(true);
      for (const [name, loaded] of this.indexes) {
        // Only the process that writes an index folds its log.
        if (loaded.wrote) await this.mutex.run(name, () => this.checkpointIfDue(name, loaded, true));
      }
      await super.close();
      await this.scan?.pool.close();
    });
  }

  /**
   * Folds an index's log into a new base file when due (see `checkpointIfDue`; the caller holds
   * the index's lock). A failure (a full disk) is reported, not thrown: the write that triggered
   * it is in the log already, which stays as it was, and a later write tries again.
   */
  private async checkpointIfDue(name: string, loaded: LoadedIndexWithWords, closing: boolean): Promise<void> {
    try {
      await checkpointIfDue(loaded, this.checkpointPolicy, closing);
    } catch (error) {
      const message = `simple-vector-db: index "${name}" could not fold its log into a base file (the log is intact): ${String(fromEngineError(error, CONNECTOR))}`;
      if (this.logger) this.logger.warn(message);
      else process.emitWarning(message);
    }
  }

  /** @internal The in-memory index, for benchmarks. */
  vectorIndex(name: string): VectorIndex | undefined {
    return this.indexes.get(name)?.vectors;
  }

  /** The index, up to date with its log; IndexNotFoundError when it does not exist. */
  private async loaded(name: string): Promise<LoadedIndexWithWords> {
    await this.ready();
    const loaded = await this.refresh(name);
    if (!loaded) throw new IndexNotFoundError(name, { connector: CONNECTOR });
    return loaded;
  }

  protected async loadIndex(name: string): Promise<LoadedIndexWithWords | undefined> {
    const loaded = await readIndexFolder(join(this.directory!, name), this.durable, true, this.indexOptions(name));
    if (loaded?.log) this.reportCut(name, loaded.log);
    return loaded;
  }

  /** Brings an index up to date with its log on disk (writes of other processes), under the index's lock. */
  private refresh(name: string): Promise<LoadedIndexWithWords | undefined> {
    if (!this.directory) return Promise.resolve(this.indexes.get(name));
    return this.mutex.run(name, () => this.catchUp(name));
  }

  /** {@link refresh} without taking the lock (the caller holds it). */
  private async catchUp(name: string): Promise<LoadedIndexWithWords | undefined> {
    const loaded = this.indexes.get(name);
    if (!this.directory) return loaded;
    const current = await catchUpIndex(join(this.directory, name), loaded, this.indexOptions(name));
    if (current) this.indexes.set(name, current);
    else this.indexes.delete(name);
    return current;
  }

  private async create(name: string, vectorSize: number): Promise<LoadedIndexWithWords> {
    const existing = this.indexes.get(name);
    if (existing) {
      this.checkSize(name, existing.vectors, vectorSize);
      return existing;
    }
    const loaded = await createIndexFolder(this.directory && join(this.directory, name), vectorSize, this.durable, this.indexOptions(name));
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

  private toRecord(hit: IndexHit): MemoryRecord {
    return {
      id: hit.id,
      vector: hit.vector ?? new Float32Array(0),
      tags: cloneTags(hit.tags),
      payload: JSON.parse(hit.payloadJson) as Record<string, unknown>,
    };
  }
}
