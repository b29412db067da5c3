import { join } from 'node:path';
import { hnswOptionsProblem } from './ann-index.js';
import { EngineError } from './engine-error.js';
import {
  catchUpIndex,
  checkpointIfDue,
  createIndexFolder,
  DEFAULT_CHECKPOINT,
  deleteRecord,
  type EngineRecord,
  HNSW_GRAPH_FILE,
  type LoadedIndex,
  readIndexFolder,
  upsertRecords,
} from './index-folder.js';
import type { TornTail } from './record-log.js';
import { ScanPool } from './scan-pool.js';
import type { Logger, Tags, TagFilter } from './types.js';
import type { IndexEntry, SimpleVectorIndexOptions, VectorIndexOptions } from './vector-index.js';

/** Options of {@link EngineIndex.open}. */
export interface EngineIndexOptions extends SimpleVectorIndexOptions {
  /** The index's folder (created when missing); none: the index lives in process memory only. */
  folder?: string | undefined;
  /** Vector size of a new index; an existing folder keeps its own (a different one is refused). */
  dimensions?: number | undefined;
  /** fsync every write, so an acknowledged write survives a power cut. @default true */
  durable?: boolean | undefined;
  /** Worker threads that scan a large index (0: every scan on the calling thread). @default 0 */
  scanThreads?: number | undefined;
  /** Smallest index (records × dimensions) whose searches use the scan threads. @default 2^25 */
  parallelScanThreshold?: number | undefined;
  /** Where HNSW file problems and failed checkpoints are reported. @default process warnings */
  logger?: Logger | undefined;
}

/** Options of {@link EngineIndex.search}. */
export interface EngineSearchOptions {
  /** Tag filters: OR across the list, AND inside each; none or empty: every record. */
  filters?: readonly TagFilter[] | undefined;
  /** Lowest cosine similarity returned. @default 0 */
  minRelevance?: number | undefined;
  /** Most results. @default 10 */
  limit?: number | undefined;
  /** Return each result's vector. @default false */
  withVectors?: boolean | undefined;
}

/** A record found by {@link EngineIndex.search} or {@link EngineIndex.list} (a copy). */
export interface EngineHit {
  id: string;
  tags: Tags;
  payloadJson: string;
  /** The vector as written, with `withVectors`. */
  vector: Float32Array | undefined;
}

/**
 * One vector index, in a folder of its own or in memory: exact top-k cosine search over
 * normalised vectors in WebAssembly memory scored with SIMD (optionally over int8 codes first,
 * or approximate through an HNSW graph), tag filters, and on disk an append-only checksummed log
 * folded at checkpoints into a columnar base file. The folder format is the one `@km/core`'s
 * SimpleVectorDb writes (one folder per index): either opens the other's folders.
 *
 * Writes run one at a time; searches run beside them. Other processes' writes to the same folder
 * are read by {@link refresh}; one process at a time may write.
 *
 * ```ts
 * const index = await EngineIndex.open({ folder: './vectors', dimensions: 3 });
 * await index.upsert([{ id: 'a', vector: [1, 0, 0], tags: { user: ['ann'] }, payloadJson: '{"text":"hi"}' }]);
 * const hits = await index.search([1, 0.1, 0], { limit: 5 });
 * await index.close();
 * ```
 */
export class EngineIndex {
  private writing: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    private loaded: LoadedIndex,
    private readonly folder: string | undefined,
    private readonly settings: VectorIndexOptions,
    private readonly pool: ScanPool | undefined,
    /** The torn log tail this open cut (a crash mid-write), with the ids of the records it held. */
    readonly lostTail: TornTail | undefined,
  ) {}

  /**
   * Opens the index in `options.folder` (repairing a torn log tail, see {@link lostTail}), or
   * creates it there (or in memory) with `options.dimensions`.
   */
  static async open(options: EngineIndexOptions = {}): Promise<EngineIndex> {
    const problem = options.hnsw ? hnswOptionsProblem(options.hnsw) : undefined;
    if (problem) throw new EngineError('invalid_argument', problem);
    const threads = options.scanThreads ?? 0;
    if (!Number.isInteger(threads) || threads < 0) {
      throw new EngineError('invalid_argument', `scanThreads must be a whole number >= 0, got ${threads}`);
    }
    const pool = threads > 0 ? new ScanPool(threads) : undefined;
    const settings: VectorIndexOptions = {
      quantization: options.quantization ?? 'int8',
      hnsw: options.hnsw ?? false,
      scan: pool && { pool, threshold: options.parallelScanThreshold ?? 2 ** 25 },
      annFile: options.folder === undefined ? undefined : join(options.folder, HNSW_GRAPH_FILE),
      logger: options.logger,
    };
    const durable = options.durable ?? true;
    try {
      let loaded = options.folder === undefined ? undefined : await readIndexFolder(options.folder, durable, true, settings);
      if (loaded && options.dimensions !== undefined && options.dimensions !== loaded.vectors.dimensions) {
        await loaded.vectors.closeAnn(false);
        await loaded.log?.close();
        throw new EngineError('vector_size_mismatch', `the index has vector size ${loaded.vectors.dimensions}, got ${options.dimensions}`);
      }
      if (!loaded) {
        const dimensions = options.dimensions;
        if (dimensions === undefined || !Number.isInteger(dimensions) || dimensions < 1) {
          throw new EngineError('invalid_argument', `a new index needs dimensions (a whole number >= 1), got ${dimensions}`);
        }
        loaded = await createIndexFolder(options.folder, dimensions, durable, settings);
      }
      return new EngineIndex(loaded, options.folder, settings, pool, loaded.log?.lastCut);
    } catch (error) {
      await pool?.close();
      throw error;
    }
  }

  /** The vector size of every record. */
  get dimensions(): number {
    return this.loaded.vectors.dimensions;
  }

  /** Number of records. */
  get size(): number {
    return this.loaded.vectors.size;
  }

  /** True when a record with this id exists. */
  has(id: string): boolean {
    return this.loaded.vectors.has(id);
  }

  /** Writes records (new ids are added, known ones replaced); logged before it resolves. */
  upsert(records: readonly EngineRecord[]): Promise<void> {
    return this.write(async () => {
      for (const r of records) this.checkSize(r.vector.length);
      await upsertRecords(this.loaded, records);
      await this.checkpointIfDue(false);
    });
  }

  /** Deletes a record; false when there was none. */
  delete(id: string): Promise<boolean> {
    return this.write(async () => {
      const deleted = await deleteRecord(this.loaded, id);
      if (deleted) await this.checkpointIfDue(false);
      return deleted;
    });
  }

  /** The most similar records to `vector` (cosine, most similar first, ties by id) matching the filters. */
  async search(vector: ArrayLike<number>, options: EngineSearchOptions = {}): Promise<Array<[EngineHit, number]>> {
    this.checkOpen();
    this.checkSize(vector.length);
    const { filters, minRelevance = 0, limit = 10, withVectors } = options;
    return this.loaded.vectors.search(vector, { filters, minRelevance, limit, withVectors });
  }

  /** Records matching the filters, by id (at most `limit`; 0: all). */
  list(options: { filters?: readonly TagFilter[]; limit?: number; withVectors?: boolean } = {}): EngineHit[] {
    this.checkOpen();
    const vectors = this.loaded.vectors;
    return vectors.list(options.filters, options.limit ?? 0).map((entry) => vectors.hitOf(entry, options.withVectors));
  }

  /** One record, or undefined. */
  get(id: string, withVector = false): EngineHit | undefined {
    this.checkOpen();
    const entry: IndexEntry | undefined = this.loaded.vectors.entry(id);
    return entry && this.loaded.vectors.hitOf(entry, withVector);
  }

  /** Applies what other processes wrote to the folder since (a reload after they checkpointed). */
  refresh(): Promise<void> {
    return this.write(async () => {
      if (this.folder === undefined) return;
      const current = await catchUpIndex(this.folder, this.loaded, this.settings);
      if (!current) throw new EngineError('index_not_found', `${this.folder} is no longer an index`, { ofStore: true });
      this.loaded = current;
    });
  }

  /**
   * Stops the HNSW build (saving a changed graph), folds a log that grew enough into a new base
   * file, closes the files and stops the scan threads; the index must not be used afterwards.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.write(async () => {
      await this.loaded.vectors.closeAnn(true);
      if (this.loaded.wrote) await this.checkpointIfDue(true);
      await this.loaded.log?.close();
    });
    this.closed = true;
    await this.pool?.close();
  }

  /**
   * Folds the log into a new base file when due. A failure (a full disk) is reported, not
   * thrown: the write that triggered it is in the log already, which stays as it was.
   */
  private async checkpointIfDue(closing: boolean): Promise<void> {
    try {
      await checkpointIfDue(this.loaded, DEFAULT_CHECKPOINT, closing);
    } catch (error) {
      const message = `embedded-engine: ${this.folder} could not fold its log into a base file (the log is intact): ${String(error)}`;
      if (this.settings.logger) this.settings.logger.warn(message);
      else process.emitWarning(message);
    }
  }

  /** Runs a write after the previous one. */
  private write<T>(run: () => Promise<T>): Promise<T> {
    this.checkOpen();
    const next = this.writing.then(run);
    this.writing = next.catch(() => undefined);
    return next;
  }

  private checkOpen(): void {
    if (this.closed) throw new EngineError('invalid_argument', 'the index is closed');
  }

  private checkSize(size: number): void {
    if (size !== this.loaded.vectors.dimensions) {
      throw new EngineError('vector_size_mismatch', `the index has vector size ${this.loaded.vectors.dimensions}, got ${size}`);
    }
  }
}
