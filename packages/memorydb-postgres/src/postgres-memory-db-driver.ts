import { IndexNotFoundError, isKmError, type RecordTagsUpdate } from '@km/core';
import { encodeTags, VectorStoreMemoryDbDriver } from '@km/core/connector';
import type { PostgresVectorStoreDriver } from './vector-store/postgres-vector-store-driver.js';

/**
 * The memory DB driver of {@link PostgresMemoryDb}: core's driver over the package's vector-store
 * driver, with tags replaced in place (`updateTags`): one UPDATE per batch sets the `tags`
 * column of the records named, encoded as upsert encodes them (`key:value` text[], its GIN index
 * kept by PostgreSQL), leaving vectors, payloads and the full-text column untouched.
 */
export class PostgresMemoryDbDriver extends VectorStoreMemoryDbDriver {
  /**
   * Replaces the tags of existing records (reserved `__` tags as given); ids without a record
   * are skipped. `IndexNotFoundError` when the index's table is missing.
   */
  async updateTags(index: string, updates: RecordTagsUpdate[]): Promise<void> {
    const size = await this.vectorSize(index);
    if (size === undefined) throw new IndexNotFoundError(index, { connector: this.name });
    const rows = updates.map((u) => ({ key: u.id, values: encodeTags(u.tags) }));
    try {
      await (this.store as PostgresVectorStoreDriver).replaceStringArrays(
        this.layout.collectionOf(index),
        this.layout.definition(size),
        this.layout.names.tags,
        rows,
      );
    } catch (error) {
      // Dropped between the size read and the update.
      if (isKmError(error, 'collection_not_found')) throw new IndexNotFoundError(index, { connector: this.name, cause: error });
      throw error;
    }
  }
}
