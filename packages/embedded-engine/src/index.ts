/**
 * `@km/embedded-engine`: km's embedded vector store, usable alone. {@link EngineIndex} is the
 * public API (one index in a folder or in memory: upsert, delete, search with tag filters, list).
 * The other exports are the building blocks `@km/core`'s SimpleVectorDb is made of (index
 * folders with their log and base file, the in-memory vector index, the scan threads); they
 * follow `@km/core`'s needs and may change in a minor version.
 *
 * @packageDocumentation
 */

// Public API
export { EngineIndex, type EngineHit, type EngineIndexOptions, type EngineSearchOptions } from './engine-index.js';
export { EngineError, isEngineError, type EngineErrorCode, type EngineErrorOptions } from './engine-error.js';
export type { Logger, TagCondition, TagFilter, Tags } from './types.js';
export type { EngineRecord } from './index-folder.js';
export type { HnswIndexOptions } from './ann-index.js';
export type { SimpleVectorIndexOptions } from './vector-index.js';

// Building blocks (used by @km/core)
export {
  advance,
  BASE_FILE,
  catchUpIndex,
  checkpoint,
  checkpointIfDue,
  type CheckpointPolicy,
  createIndexFolder,
  DEFAULT_CHECKPOINT,
  deleteRecord,
  dropRecord,
  HNSW_GRAPH_FILE,
  type IndexFolderOptions,
  type LoadedIndex,
  mayHaveText,
  NO_TEXT_VIEW,
  putRecord,
  readIndexFolder,
  type TextView,
  type TextViewFactory,
  toLogEntry,
  upsertRecords,
} from './index-folder.js';
export { hnswOptionsProblem } from './ann-index.js';
export {
  type BaseRows,
  type IndexEntry,
  type IndexHit,
  type IndexSearchOptions,
  VectorIndex,
  type VectorIndexOptions,
} from './vector-index.js';
export { BaseFile, type BaseHeader, type BaseSource, baseFilesSupported, writeBaseFile } from './record-base-file.js';
export { RecordLog, type LogEntry, type LogVisitor, type TornTail } from './record-log.js';
export { ScanPool, type ScanKernel } from './scan-pool.js';
export type { ParallelScanOptions } from './parallel-scan.js';
export { TopK, type TieBreak } from './top-k.js';
export {
  decodeHnswGraph,
  encodeHnswGraph,
  HnswGraph,
  type HnswNodeKey,
  type HnswOptions,
  type HnswQuery,
  type HnswSearchOptions,
  type HnswSpace,
  queryOfScore,
} from './hnsw/index.js';
export { seededRandom } from './hnsw/seeded-random.js';
