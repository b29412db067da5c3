import { MemoryDb } from '@km/core';
import { KmRecordLayout, VectorStoreMemoryDbDriver } from '@km/core/connector';
import { PayloadFields } from './payload-fields.js';
import type { QdrantMemoryDbOptions } from './qdrant-config.js';
import { MAX_COLLECTION_NAME_BYTES, openQdrant } from './qdrant-connection.js';
import { QdrantVectorStoreDriver } from './vector-store/qdrant-vector-store-driver.js';
import type { QdrantPointLayout } from './vector-store/qdrant-vector-store-options.js';

/**
 * Where KM's records sit in a Qdrant collection, as km 0.x's memory DB (and Kernel Memory) wrote
 * them: one unnamed cosine vector, and in the point's payload the km `id`, the `tags` (`key:value`
 * strings, keyword-indexed), the `payload` as a native JSON object and the vector's length
 * (`norm`: Qdrant stores cosine vectors normalised). The point id is a UUIDv5 of the km id.
 */
const KM_POINTS: QdrantPointLayout = {
  unnamedVector: 'embedding',
  vectorNorms: { embedding: PayloadFields.norm },
  jsonObjects: [PayloadFields.payload],
  listsEveryCollection: true,
  what: 'QdrantMemoryDb',
};

/**
 * Memory records in Qdrant: core's `MemoryDb` over the package's one driver,
 * {@link QdrantVectorStoreDriver}, through KM's record layout. One collection per index
 * (`{collectionPrefix}{index}`) with one unnamed `Cosine` vector and a `keyword` payload index on
 * `tags`; a point per record whose id is a version-5 UUID of the km id ({@link pointIdOf}), with
 * the km id, tags, payload and the vector's length in its payload. Relevance is Qdrant's cosine
 * score. Collections written by earlier versions open unchanged.
 *
 * ```ts
 * const db = new QdrantMemoryDb({ url: 'http://127.0.0.1:6333', apiKey: process.env.QDRANT_API_KEY });
 * ```
 */
export class QdrantMemoryDb extends MemoryDb<VectorStoreMemoryDbDriver> {
  constructor(options: QdrantMemoryDbOptions) {
    super(qdrantMemoryDbDriver(options), options);
  }

  /** The collection name of a normalised index. */
  collection(index: string): string {
    return this.driver.layout.collectionOf(index);
  }
}

/** The driver of {@link QdrantMemoryDb}: its options as a typed driver with KM's point layout, and KM's record layout on its collections. */
function qdrantMemoryDbDriver(options: QdrantMemoryDbOptions): VectorStoreMemoryDbDriver {
  const { client, prefix } = openQdrant(options, 'QdrantMemoryDb');
  const layout = new KmRecordLayout({
    prefix,
    storageNames: {
      id: PayloadFields.id,
      embedding: 'embedding',
      tags: PayloadFields.tags,
      payload: PayloadFields.payload,
      content: false,
    },
    collectionNames: { maxBytes: MAX_COLLECTION_NAME_BYTES, what: 'Qdrant collection names' },
  });
  // The layout adds the prefix: the typed driver sees whole collection names.
  const store = new QdrantVectorStoreDriver({ ...options, client, collectionPrefix: '' }, KM_POINTS);
  return new VectorStoreMemoryDbDriver(store, layout);
}
