import type { Logger } from '../util/logger.js';
import { MemoryDb } from './memory-db.js';
import type { RecordLoss, RecordLossSource } from './record-loss.js';
import { SimpleTextDbDriver } from './simple-text-db-driver.js';

/** Options of {@link SimpleTextDb}. */
export interface SimpleTextDbOptions {
  /** Folder that persists every index; volatile when missing. */
  directory?: string;
  /** @default true */
  durable?: boolean;
  /** Results of a search when its limit is `<= 0`. @default 1000 */
  maxSearchResults?: number;
  /** Where a torn log tail cut on load is reported, with the record ids it dropped. @default a process warning */
  logger?: Logger;
}

/**
 * A memory DB without embeddings, as Kernel Memory's SimpleTextDb: a search returns the
 * records whose `payload.text` contains the query's words, ranked by BM25. Relevance is the
 * BM25 score over its upper bound for the query, in [0, 1] (not a cosine); `mode: 'lexical'`
 * ranks the same way, `hybrid` is refused. Useful to run the pipeline with no model.
 *
 * ```ts
 * const db = new SimpleTextDb({ directory: './km-data/text' });
 * for await (const [record, relevance] of db.getSimilarList('docs', 'moon landing')) ...
 * ```
 */
export class SimpleTextDb extends MemoryDb<SimpleTextDbDriver> implements RecordLossSource {
  constructor(options: SimpleTextDbOptions = {}) {
    super(new SimpleTextDbDriver(options), { maxSearchResults: options.maxSearchResults ?? 1000 });
  }

  /** Reports the records lost to a torn log tail cut on load (see `SimpleVectorDb.onRecordsLost`). */
  onRecordsLost(listener: (loss: RecordLoss) => void): () => void {
    return this.driver.onRecordsLost(listener);
  }
}
