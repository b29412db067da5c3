import { InvalidInputError, MemoryDb, normalizeIndexName } from '@km/core';
import { KmRecordLayout, VectorStoreMemoryDbDriver } from '@km/core/connector';
import type { ElasticsearchMemoryDbOptions } from './elasticsearch-config.js';
import { checkIndexPrefix, MAX_ELASTICSEARCH_INDEX_BYTES } from './index-names.js';
import { ElasticsearchVectorStoreDriver } from './vector-store/elasticsearch-vector-store-driver.js';
import type { ElasticsearchFieldStorage } from './vector-store/elasticsearch-vector-store-options.js';

/**
 * How KM's memory indexes keep their fields, as km 0.x wrote them: `payload` a native JSON object
 * (mapped `object`, `enabled: false`), `content` (the partition text) an analysed `text` field that
 * reads never return, the index `{indexPrefix}{index}`, and a record id over 512 bytes hashed into
 * the `_id` (the `id` field keeps it exactly).
 */
export const KM_FIELD_STORAGE: ElasticsearchFieldStorage = Object.freeze({
  jsonFields: ['payload'],
  textFields: ['content'],
  unreadFields: ['content'],
  plainIndexNames: true,
  hashedIds: true,
});

/**
 * Memory records in Elasticsearch 8: core's `MemoryDb` over the package's one driver,
 * {@link ElasticsearchVectorStoreDriver}, through KM's record layout. One index per km index
 * (`{indexPrefix}{index}`, `km-` by default) with a strict mapping: `id` keyword, `tags` keyword
 * (`key:value`), `payload` kept in `_source` but not indexed, `content` text (the partition's
 * text, for lexical search), `embedding` dense_vector with cosine similarity and a plain float
 * HNSW graph. Similarity search is a kNN query whose filter is applied during the graph search;
 * relevance is the cosine (converted back from Elasticsearch's `(1 + cos) / 2`); lexical search
 * is a BM25 `match` query on `content` mapped to [0, 1). Indexes written by earlier versions
 * open unchanged.
 *
 * ```ts
 * const db = new ElasticsearchMemoryDb({ node: 'http://127.0.0.1:9200', apiKey: process.env.ES_API_KEY });
 * ```
 */
export class ElasticsearchMemoryDb extends MemoryDb<VectorStoreMemoryDbDriver> {
  constructor(options: ElasticsearchMemoryDbOptions) {
    super(elasticsearchMemoryDbDriver(options), options);
  }

  /** The Elasticsearch index of a km index name. */
  indexName(index: string): string {
    const store = this.driver.store as ElasticsearchVectorStoreDriver;
    return store.indexName(this.driver.layout.collectionOf(normalizeIndexName(index)));
  }
}

/** The driver of {@link ElasticsearchMemoryDb}: its options as a typed driver and KM's record layout on its indexes. */
function elasticsearchMemoryDbDriver(options: ElasticsearchMemoryDbOptions): VectorStoreMemoryDbDriver {
  if (!options.client && !options.node && !options.cloudId) {
    throw new InvalidInputError('invalid_argument', 'give ElasticsearchMemoryDb a client, a node URL or a cloudId', {
      connector: 'elasticsearch',
    });
  }
  const prefix = checkIndexPrefix(options.indexPrefix ?? 'km-');
  // The typed driver owns the prefix (it lists `{prefix}*`, as before), so a km index is the
  // collection of the same name and index names hold what the prefix leaves of 255 bytes.
  const layout = new KmRecordLayout({
    prefix: '',
    collectionNames: {
      maxBytes: MAX_ELASTICSEARCH_INDEX_BYTES - Buffer.byteLength(prefix, 'utf8'),
      what: `Elasticsearch index names after the prefix "${prefix}"`,
    },
  });
  const store = new ElasticsearchVectorStoreDriver({ ...options, indexPrefix: prefix, storage: KM_FIELD_STORAGE });
  return new VectorStoreMemoryDbDriver(store, layout);
}
