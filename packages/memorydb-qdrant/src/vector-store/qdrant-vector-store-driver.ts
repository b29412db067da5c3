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
import {
  checkExistingCollection,
  namedVectors,
  payloadIndexes,
  unnamedProperty,
  vectorsConfig,
} from './qdrant-vector-collection-schema.js';
import { collectionNotFound, translateQdrantVectorError } from './qdrant-vector-errors.js';
import { toQdrantVectorFilter } from './qdrant-vector-filter.js';
import { fromVectorPoint, pointIdOfKey, type QdrantVectorPoint, toVectorPoint, VECTOR_COPIES_FIELD } from './qdrant-vector-points.js';
import type { QdrantPointLayout, QdrantVectorStoreOptions } from './qdrant-vector-store-options.js';
import { MAX_COLLECTION_NAME_BYTES, openQdrant } from '../qdrant-connection.js';

const CONNECTOR = 'qdrant';
const SCROLL_PAGE = 256;

/**
 * The Qdrant driver of {@link QdrantVectorStore}: one Qdrant collection per km collection
 * (`{prefix}{name}`), a named vector per vector property (Cosine, Dot or Euclid, whose scores
 * are already km's convention), a point per record whose id is the key (`uuid`, `integer`) or a
 * UUID derived from it (`string`, the key itself kept in the payload), data values in the
 * payload with a payload index per filterable property. Filters are Qdrant filters, applied
 * during the HNSW search. Qdrant stores and searches all-zero vectors (a zero cosine vector stays
 * zero and scores 0). A {@link QdrantPointLayout} (internal: `QdrantMemoryDb` gives KM's) keeps
 * km 0.x's memory-DB collections as they are: an unnamed vector, its length in the payload, the
 * payload as a JSON object.
 */
export class QdrantVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly collectionNameLimit: { bytes: number; reason: string };
  /** Qdrant's largest dense vector. */
  readonly maxDimensions = 65536;
  readonly maxBatchSize: number;
  /** Qdrant keeps a zero vector as it is (cosine preprocessing skips it); it scores 0 against any query. */
  readonly zeroVectors = true;
  private readonly options: QdrantVectorStoreOptions;
  private readonly layout: QdrantPointLayout;
  private readonly client: QdrantClient;
  private readonly prefix: string;

  constructor(options: QdrantVectorStoreOptions, layout: QdrantPointLayout = {}) {
    const { client, prefix, batchSize } = openQdrant(options, layout.what ?? 'QdrantVectorStore');
    this.options = options;
    this.layout = layout;
    this.client = client;
    this.prefix = prefix;
    this.collectionNameLimit = indexNameLimit('Qdrant collection names', MAX_COLLECTION_NAME_BYTES, prefix);
    this.maxBatchSize = batchSize;
  }

  async listCollections(): Promise<string[]> {
    const { collections } = await this.call('', () => this.client.getCollections());
    const names = collections.map((c) => c.name);
    if (this.layout.listsEveryCollection) return names.filter((n) => n.startsWith(this.prefix)).map((n) => n.slice(this.prefix.length));
    return collectionNamesUnderPrefix(names, this.prefix);
  }

  async collectionExists(name: string): Promise<boolean> {
    const { exists } = await this.call(name, () => this.client.collectionExists(this.collection(name)));
    return exists;
  }

  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    const collection = this.collection(name);
    checkPayloadPaths(definition);
    const existing = await this.vectorsOf(name);
    if (existing !== undefined) return checkExistingCollection(collection, definition, existing, this.layout);
    try {
      await this.client.createCollection(collection, { vectors: vectorsConfig(definition, this.layout) });
    } catch (error) {
      // Another creator won the race: check what it made.
      const made = await this.vectorsOf(name);
      if (made !== undefined) return checkExistingCollection(collection, definition, made, this.layout);
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
    const points = records.map((r) => toVectorPoint(definition, r, this.layout));
    await this.call(name, () => this.client.upsert(this.collection(name), { wait: true, points }));
  }

  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    if (keys.length === 0) return [];
    try {
      const points = await this.client.retrieve(this.collection(name), {
        ids: keys.map((k) => pointIdOfKey(k, definition)),
        with_payload: this.payloadSelector(definition, includeVectors),
        with_vector: this.vectorSelector(definition, includeVectors),
      });
      return points.map((p) => fromVectorPoint(definition, p, includeVectors, this.layout));
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
        ...(query.vectorProperty.storageName === this.layout.unnamedVector ? {} : { using: query.vectorProperty.storageName }),
        ...(filter ? { filter } : {}),
        limit: query.limit,
        with_payload: this.payloadSelector(definition, query.includeVectors),
        with_vector: this.vectorSelector(definition, query.includeVectors),
        params: { exact: this.options.exactSearch ?? false, ...(ef ? { hnsw_ef: Math.max(query.limit, ef) } : {}) },
      });
      return points.map((p): [StorageRecord, number] => [fromVectorPoint(definition, p, query.includeVectors, this.layout), p.score ?? 0]);
    } catch (error) {
      if (isMissingCollection(error)) return [];
      throw translateQdrantVectorError(error, name);
    }
  }

  /**
   * Records matching the filter in the given order. Qdrant filters them while scrolling (its own
   * `order_by` takes one field and breaks no ties), so every matching point is read and the
   * driver sorts them (see {@link recordOrder}): meant for listings and chat histories, not for
   * collections of millions. With a limit, the scroll reads only the key and the ordered fields
   * (no vectors), and the first points are then retrieved whole.
   */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    if (query.limit <= 0) return [];
    const filter = toQdrantVectorFilter(query.filter, definition);
    const order = recordOrder(definition.key.storageName, query.orderBy);
    try {
      if (query.limit >= Number.MAX_SAFE_INTEGER) {
        const points = await this.scroll(
          name,
          filter,
          this.payloadSelector(definition, query.includeVectors),
          this.vectorSelector(definition, query.includeVectors),
          query.signal,
        );
        return points.map((p) => fromVectorPoint(definition, p, query.includeVectors, this.layout)).sort(order);
      }
      const fields = [...new Set([definition.key.storageName, ...query.orderBy.map((o) => o.storageName)])];
      const first = (await this.scroll(name, filter, fields, false, query.signal))
        .map((p) => ({ id: p.id, row: fromVectorPoint(definition, p, false, this.layout) }))
        .sort((a, b) => order(a.row, b.row))
        .slice(0, query.limit);
      if (first.length === 0) return [];
      const points = await this.client.retrieve(this.collection(name), {
        ids: first.map((p) => p.id),
        with_payload: this.payloadSelector(definition, query.includeVectors),
        with_vector: this.vectorSelector(definition, query.includeVectors),
      });
      return points.map((p) => fromVectorPoint(definition, p, query.includeVectors, this.layout)).sort(order);
    } catch (error) {
      if (isMissingCollection(error)) return [];
      throw translateQdrantVectorError(error, name);
    }
  }

  /**
   * The dimensions of the vector stored under `storageName`, read from the collection's vectors
   * (the unnamed vector's size when the layout keeps it there); undefined when the collection or
   * the named vector does not exist. A collection with named vectors where the layout wants the
   * unnamed one is `invalid_argument`.
   */
  async vectorDimensions(name: string, storageName: string): Promise<number | undefined> {
    const vectors = await this.vectorsOf(name);
    if (vectors === undefined) return undefined;
    const unnamed = vectors !== null && typeof vectors === 'object' && 'size' in vectors;
    if (storageName === this.layout.unnamedVector) {
      if (!unnamed) throw namedVectors(this.collection(name));
      const size = (vectors as { size?: unknown }).size;
      return typeof size === 'number' ? size : undefined;
    }
    if (unnamed || vectors === null || typeof vectors !== 'object') return undefined;
    const size = (vectors as Record<string, { size?: unknown } | undefined>)[storageName]?.size;
    return typeof size === 'number' ? size : undefined;
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

  /** Every matching point, page by page, in point-id order. */
  private async scroll(
    name: string,
    filter: ReturnType<typeof toQdrantVectorFilter>,
    withPayload: true | string[] | { exclude: string[] },
    withVector: boolean | string[],
    signal: AbortSignal | undefined,
  ): Promise<QdrantVectorPoint[]> {
    const points: QdrantVectorPoint[] = [];
    let offset: string | number | undefined;
    do {
      signal?.throwIfAborted();
      const page = await this.client.scroll(this.collection(name), {
        ...(filter ? { filter } : {}),
        limit: SCROLL_PAGE,
        with_payload: withPayload,
        with_vector: withVector,
        ...(offset !== undefined ? { offset } : {}),
      });
      points.push(...page.points);
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    return points;
  }

  /** The whole payload when vectors are read or the layout keeps norms instead of copies, else all but the copies. */
  private payloadSelector(definition: RecordDefinition, includeVectors: boolean): true | { exclude: string[] } {
    const copied = definition.vectors.some((v) => v.distance === 'cosine' && this.layout.vectorNorms?.[v.storageName] === undefined);
    return includeVectors || (!copied && this.layout.vectorNorms !== undefined) ? true : { exclude: [VECTOR_COPIES_FIELD] };
  }

  /** The vectors to read: none, the unnamed one (`true`), or the named ones of the definition. */
  private vectorSelector(definition: RecordDefinition, includeVectors: boolean): boolean | string[] {
    if (!includeVectors) return false;
    return unnamedProperty(definition, this.layout) ? true : definition.vectors.map((v) => v.storageName);
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
