import { MemoryDb, normalizeIndexName } from '@km/core';
import type { ElasticsearchMemoryDbOptions } from './elasticsearch-config.js';
import { ElasticsearchMemoryDbDriver } from './elasticsearch-memory-db-driver.js';

/**
 * Memory records in Elasticsearch 8 (see {@link ElasticsearchMemoryDbDriver}). Core's
 * `MemoryDb` owns the rules; the driver translates.
 *
 * ```ts
 * const db = new ElasticsearchMemoryDb({ node: 'http://127.0.0.1:9200', apiKey: process.env.ES_API_KEY });
 * ```
 */
export class ElasticsearchMemoryDb extends MemoryDb<ElasticsearchMemoryDbDriver> {
  constructor(options: ElasticsearchMemoryDbOptions) {
    super(new ElasticsearchMemoryDbDriver(options), options);
  }

  /** The Elasticsearch index of a km index name. */
  indexName(index: string): string {
    return this.driver.indexName(normalizeIndexName(index));
  }
}
