import { InvalidInputError, type KeyValue, type RecordDefinition } from '@km/core';
import {
  type DriverRecordQuery,
  type DriverVectorQuery,
  recordOrder,
  type StorageRecord,
  type VectorStoreDriver,
  collectionNamesUnderPrefix,
  indexNameLimit,
} from '@km/core/connector';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { httpStatus, isMissingCollection, qdrantMessage } from '../qdrant-errors.js';
import { checkPayloadPaths } from './qdrant-payload-path.js';
import { checkExistingCollection, payloadIndexes, vectorsConfig } from './qdrant-vector-collection-schema.js';
import { collectionNotFound, translateQdrantVectorError } from './qdrant-vector-errors.js';
import { toQdrantVectorFilter } from './qdrant-vector-filter.js';
import { fromVectorPoint, pointIdOfKey, toVectorPoint, VECTOR_COPIES_FIELD } from './qdrant-vector-points.js';
import type { QdrantVectorStoreOptions } from './qdrant-vector-store-options.js';
import { MAX_COLLECTION_NAME_BYTES, openQdrant } from '../qdrant-connection.js';

const CONNECTOR = 'qdrant';
const SCROLL_PAGE = 256;

/**
 * The Qdrant driver of {@link QdrantVectorStore}: one Qdrant collection per km collection
 * (`{prefix}{name}`), a named vector per vector property (Cosine, Dot or Euclid, whose scores
 * are already km's convention), a point per record whose id is the key (`uuid`, `integer`) or a
 * UUID derived from it (`string`, the key itself kept in the payload), data values in the
 * payload with a payload index per filterable property. Filters are Qdrant filters, applied
 * during the HNSW search.
 */
export class QdrantVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly collectionNameLimit: { bytes: number; reason: string };
  /** Qdrant's largest dense vector. */
  readonly maxDimensions = 65536;
  readonly maxBatchSize: number;
  private readonly options: QdrantVectorStoreOptions;
  private readonly client: QdrantClient;
  private readonly prefix: string;

  constructor(options: QdrantVectorStoreOptions) {
    const { client, prefix, batchSize } = openQdrant(options, 'QdrantVectorStore');
    this.options = options;
    this.client = client;
    this.prefix = prefix;
    this.collectionNameLimit = indexNameLimit('Qdrant collection names', MAX_COLLECTION_NAME_BYTES, prefix);
    this.maxBatchSize = batchSize;
  }

  async listCollections(): Promise<string[]> {
    const { collections } = await this.call('', () => this.client.getCollections());
    return collectionNamesUnderPrefix(
      collections.map((c) => c.name),
      this.prefix,
    );
  }

  async collectionExists(name: string): Promise<boolean> {
    const { exists } = await this.call(name, () => this.client.collectionExists(this.collection(name)));
    return exists;
  }

  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    const collection = this.collection(name);
    checkPayloadPaths(definition);
    const existing = await this.vectorsOf(name);
    if (existing !== undefined) return checkExistingCollection(collection, definition, existing);
    try {
      await this.client.createCollection(collection, { vectors: vectorsConfig(definition) });
    } catch (error) {
      // Another creator won the race: check what it made.
      const made = await this.vectorsOf(name);
      if (made !== undefined) return checkExistingCollection(collection, definition, made);
      const status = httpStatus(error);
      if (status === 400 || status === 422) {
        // Qdrant refused the definition itself (a vector name, a size).
        throw new InvalidInputError('invalid_argument', `Qdrant refused collection "${collection}": ${qdrantMessage(error)}`, {
          connector: CONNECTOR,
          cause: error,
        });
      }
      throw translateQdrantVectorError(error, name);
    }
    for (const index of payloadIndexes(definition)) {
      await this.call(name, () => this.client.createPayloadIndex(collection, { ...index, wait: true }));
    }
  }

  async deleteCollection(name: string): Promise<void> {
    try {
      await this.client.deleteCollection(this.collection(name));
    } catch (error) {
      if (!isMissingCollection(error)) throw translateQdrantVectorError(error, name);
    }
  }

  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void> {
    const points = records.map((r) => toVectorPoint(definition, r));
    await this.call(name, () => this.client.upsert(this.collection(name), { wait: true, points }));
  }

  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    if (keys.length === 0) return [];
    try {
      const points = await this.client.retrieve(this.collection(name), {
        ids: keys.map((k) => pointIdOfKey(k, definition)),
        with_payload: payloadSelector(includeVectors),
        with_vector: includeVectors ? definition.vectors.map((v) => v.storageName) : false,
      });
      return points.map((p) => fromVectorPoint(definition, p, includeVectors));
    } catch (error) {
      if (isMissingCollection(error)) return [];
      throw translateQdrantVectorError(error, name);
    }
  }

  async delete(name: string, definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    if (keys.length === 0) {
      if (!(await this.collectionExists(name))) throw collectionNotFound(name);
      return;
    }
    const points = keys.map((k) => pointIdOfKey(k, definition));
    await this.call(name, () => this.client.delete(this.collection(name), { wait: true, points }));
  }

  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    const filter = toQdrantVectorFilter(query.filter, definition);
    const ef = this.options.hnswEf;
    try {
      const { points } = await this.client.query(this.collection(name), {
        query: Array.from(query.vector),
        using: query.vectorProperty.storageName,
        ...(filter ? { filter } : {}),
        limit: query.limit,
        with_payload: payloadSelector(query.includeVectors),
        with_vector: query.includeVectors ? definition.vectors.map((v) => v.storageName) : false,
        params: { exact: this.options.exactSearch ?? false, ...(ef ? { hnsw_ef: Math.max(query.limit, ef) } : {}) },
      });
      return points.map((p): [StorageRecord, number] => [fromVectorPoint(definition, p, query.includeVectors), p.score ?? 0]);
    } catch (error) {
      if (isMissingCollection(error)) return [];
      throw translateQdrantVectorError(error, name);
    }
  }

  /**
   * Records matching the filter in the given order. Qdrant filters them while scrolling (its own
   * `order_by` takes one field and breaks no ties), so every matching point is read and the
   * driver sorts them (see {@link recordOrder}): meant for listings and chat histories, not for
   * collections of millions.
   */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    if (query.limit <= 0) return [];
    const filter = toQdrantVectorFilter(query.filter, definition);
    const records: StorageRecord[] = [];
    let offset: string | number | undefined;
    try {
      do {
        query.signal?.throwIfAborted();
        const page = await this.client.scroll(this.collection(name), {
          ...(filter ? { filter } : {}),
          limit: SCROLL_PAGE,
          with_payload: payloadSelector(query.includeVectors),
          with_vector: query.includeVectors ? definition.vectors.map((v) => v.storageName) : false,
          ...(offset !== undefined ? { offset } : {}),
        });
        for (const point of page.points) records.push(fromVectorPoint(definition, point, query.includeVectors));
        const next = page.next_page_offset;
        offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
      } while (offset !== undefined);
    } catch (error) {
      if (isMissingCollection(error)) return [];
      throw translateQdrantVectorError(error, name);
    }
    return records.sort(recordOrder(definition.key.storageName, query.orderBy)).slice(0, query.limit);
  }

  /** The Qdrant collection of a km collection name. */
  collection(name: string): string {
    return `${this.prefix}${name}`;
  }

  /** The `vectors` parameter of an existing collection, undefined when it does not exist. */
  private async vectorsOf(name: string): Promise<unknown> {
    try {
      const info = await this.client.getCollection(this.collection(name));
      return info.config.params.vectors ?? {};
    } catch (error) {
      if (isMissingCollection(error)) return undefined;
      throw translateQdrantVectorError(error, name);
    }
  }

  /** Calls the client, turning its errors into km errors (a missing collection is `collection_not_found`). */
  private async call<T>(name: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw translateQdrantVectorError(error, name);
    }
  }
}

/** The whole payload when vectors are read (it holds the copies of cosine vectors), else all but those copies. */
function payloadSelector(includeVectors: boolean): true | { exclude: string[] } {
  return includeVectors ? true : { exclude: [VECTOR_COPIES_FIELD] };
}
