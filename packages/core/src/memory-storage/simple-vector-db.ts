import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { Logger } from '../util/logger.js';
import { normalizeIndexName } from '../validation/index-name.js';
import { MemoryDb, type MemoryDbOptions } from './memory-db.js';
import type { RecordLoss, RecordLossSource } from './record-loss.js';
import { SimpleVectorDbDriver } from './simple-vector-db-driver.js';
import type { SimpleVectorIndexOptions, VectorIndex } from '@km/embedded-engine';

export type { HnswIndexOptions, SimpleVectorIndexOptions } from '@km/embedded-engine';

/** Options of {@link SimpleVectorDb}. */
export interface SimpleVectorDbOptions {
  /** Folder that persists every index; volatile (process memory only) when missing. */
  directory?: string;
  /** fsync every write, so an acknowledged write survives a power cut. @default true */
  durable?: boolean;
  /** Results of a similarity search when its limit is `<= 0`. @default 1000 */
  maxSearchResults?: number;
  /** Embeds text queries passed to `getSimilarList`; vector queries need none. */
  embeddingGenerator?: ITextEmbeddingGenerator;
  /** Cache of text-query embeddings (see {@link MemoryDbOptions.queryCache}); `false` embeds every query. @default on */
  queryCache?: MemoryDbOptions['queryCache'];
  /** Where a torn log tail cut on load is reported, with the record ids it dropped. @default a process warning */
  logger?: Logger;
  /**
   * Default quantisation of every index. 'int8': scan int8 codes kept beside the float32 vectors,
   * then rescore the candidates exactly (same results and scores, about 2x faster scans, ~26%
   * more memory); the codes are kept in the index's base file, not in its log. 'none': float32
   * scan only. @default 'int8'
   */
  quantization?: 'none' | 'int8';
  /**
   * Default HNSW settings of every index (see {@link SimpleVectorIndexOptions.hnsw}): opt-in
   * approximate search for large indexes, built in the background. @default false
   */
  hnsw?: SimpleVectorIndexOptions['hnsw'];
  /** Per-index overrides, keyed by index name as given (normalised like every index name). */
  indexes?: Record<string, SimpleVectorIndexOptions>;
  /**
   * Worker threads that scan large indexes: a search of an index of at least
   * `parallelScanThreshold` (records × dimensions) splits its rows across them while the calling
   * thread stays free; smaller indexes, and filters matching few records, are scanned on the
   * calling thread. 0: every scan on the calling thread. The threads start on first use, never
   * keep the process alive, and stop on `close()`. @default 2 with 2+ cores, else 0
   */
  scanThreads?: number;
  /**
   * Smallest index (records × dimensions) whose searches use the scan threads.
   * @default 2^25 (e.g. 87,382 records of 384 dimensions)
   */
  parallelScanThreshold?: number;
  /** @internal When logs are folded into base files (see `SimpleVectorDbDriver`). */
  checkpoint?: { entries: number };
}

/**
 * The embedded vector DB: exact top-k cosine search over normalised vectors kept in
 * contiguous WebAssembly memory and scored with SIMD, a tag index for filters, and (with a
 * directory) an append-only checksummed log per index that survives restarts and crashes,
 * folded at checkpoints into a base file that opens at about the speed of reading it (see
 * {@link SimpleVectorDbDriver}). Upserting into a missing index creates it.
 *
 * ```ts
 * const db = new SimpleVectorDb({ directory: './km-data/vectors' });
 * await db.upsert('docs', { id: 'a', vector: [0.1, 0.2, 0.3], tags: {}, payload: { text: 'hi' } });
 * for await (const [record, relevance] of db.getSimilarList('docs', [0.1, 0.2, 0.3], { limit: 5 })) ...
 * ```
 */
export class SimpleVectorDb extends MemoryDb<SimpleVectorDbDriver> implements RecordLossSource {
  constructor(options: SimpleVectorDbOptions = {}) {
    super(new SimpleVectorDbDriver(options), {
      embeddingGenerator: options.embeddingGenerator,
      queryCache: options.queryCache,
      maxSearchResults: options.maxSearchResults ?? 1000,
    });
  }

  /**
   * Reports the records lost to a torn log tail (a crash mid-write) that this process cut when
   * it opened an index; losses found before subscribing are replayed. `MemoryService` re-runs
   * `save_records` for the documents named.
   */
  onRecordsLost(listener: (loss: RecordLoss) => void): () => void {
    return this.driver.onRecordsLost(listener);
  }

  /** Number of records in an index (0 when missing). */
  count(index: string): Promise<number> {
    return this.driver.count(normalizeIndexName(index));
  }

  /** @internal The in-memory index, for benchmarks. */
  vectorIndex(index: string): VectorIndex | undefined {
    return this.driver.vectorIndex(normalizeIndexName(index));
  }
}
