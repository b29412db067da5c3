import type { ITextEmbeddingGenerator, Logger } from '@km/core';
import { SimpleVectorStoreDriver } from '@km/core/connector';
import { VectorStore } from './vector-store.js';

/** Options of {@link SimpleVectorStore}. */
export interface SimpleVectorStoreOptions {
  /**
   * Folder holding one subfolder per collection (its `definition.json` and `records.log`);
   * in memory only, lost with the process, when missing. One store at a time may open it
   * (another process or instance would not see its writes).
   * @default none (in memory)
   */
  directory?: string;
  /** fsync every write, so an acknowledged write survives a power cut. @default true */
  durable?: boolean;
  /** Embeds for collections whose definition has no generator and that are given none. @default none */
  embeddingGenerator?: ITextEmbeddingGenerator;
  /** Where a torn log tail cut on load (a crash mid-write) is reported. @default a process warning */
  logger?: Logger;
}

/**
 * The built-in typed vector store: records in memory, exact search over every record (cosine,
 * dot or euclidean), every key type, data type and filter operator; with a `directory`, each
 * collection persists in its own folder as a crash-safe append-only log (see
 * {@link SimpleVectorStoreDriver}). Suits tests, prototypes and collections up to a few hundred
 * thousand vectors.
 *
 * ```ts
 * const Hotel = defineRecord({
 *   key: 'hotelId',
 *   data: { name: { type: 'string', filterable: true }, rating: { type: 'number', filterable: true } },
 *   vectors: { embedding: { dimensions: 3, distance: 'cosine' } },
 * });
 * const store = new SimpleVectorStore({ directory: './km-data/collections' });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert({ hotelId: 'h1', name: 'Sea View', rating: 4.5, embedding: [0.1, 0.9, 0.2] });
 * const [best] = await hotels.search([0.1, 0.8, 0.3], { top: 1, filter: { rating: { gte: 4 } } });
 * await store.close();
 * ```
 */
export class SimpleVectorStore extends VectorStore {
  constructor(options: SimpleVectorStoreOptions = {}) {
    const { directory, durable, logger, embeddingGenerator } = options;
    super(new SimpleVectorStoreDriver({ directory, durable, logger }), { embeddingGenerator });
  }
}
