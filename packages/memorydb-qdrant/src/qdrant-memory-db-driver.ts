import { KmError, type MemoryRecord } from '@km/core';
import { compareRecordIds, indexNameLimit, indexNamesUnderPrefix } from '@km/core/connector';
import type { CheckedRecord, DriverList, DriverSearch, MemoryDbDriver } from '@km/core/connector';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { PayloadFields } from './payload-fields.js';
import { pointIdOf } from './point-id.js';
import { toPoint, toRecord, type QdrantPoint } from './point-mapping.js';
import type { QdrantMemoryDbOptions } from './qdrant-config.js';
import { MAX_COLLECTION_NAME_BYTES, openQdrant } from './qdrant-connection.js';
import { toQdrantFilter, type QdrantFilter } from './qdrant-filters.js';
import { isMissingCollection, translateQdrantError } from './qdrant-errors.js';

const CONNECTOR = 'qdrant';
const SCROLL_PAGE = 256;

/**
 * The Qdrant driver of {@link QdrantMemoryDb}: one collection per index (cosine distance), a
 * point per record whose UUID is derived from the km id (see {@link pointIdOf}), the km id,
 * `key:value` tags (keyword payload index), payload and the vector's original length (`norm`:
 * Qdrant stores cosine vectors normalised) in the point's payload. Filters become Qdrant
 * filters, applied during the HNSW search; relevance is Qdrant's cosine score.
 */
export class QdrantMemoryDbDriver implements MemoryDbDriver {
  readonly name = CONNECTOR;
  readonly indexNameLimit: { bytes: number; reason: string };
  /** Qdrant's largest dense vector. */
  readonly maxVectorSize = 65536;
  readonly maxBatchSize: number;
  private readonly options: QdrantMemoryDbOptions;
  private readonly client: QdrantClient;
  private readonly prefix: string;

  constructor(options: QdrantMemoryDbOptions) {
    const { client, prefix, batchSize } = openQdrant(options, 'QdrantMemoryDb');
    this.options = options;
    this.client = client;
    this.prefix = prefix;
    this.indexNameLimit = indexNameLimit('Qdrant collection names', MAX_COLLECTION_NAME_BYTES, prefix);
    this.maxBatchSize = batchSize;
  }

  async vectorSize(index: string): Promise<number | undefined> {
    let info: Awaited<ReturnType<QdrantClient['getCollection']>>;
    try {
      info = await this.client.getCollection(this.collection(index));
    } catch (error) {
      if (isMissingCollection(error)) return undefined;
      throw translateQdrantError(error, index);
    }
    const vectors = info.config.params.vectors as { size?: number } | undefined;
    if (typeof vectors?.size !== 'number') {
      throw new KmError(
        'invalid_argument',
        `collection "${this.collection(index)}" has named vectors; km needs one unnamed cosine vector`,
        {
          connector: CONNECTOR,
        },
      );
    }
    return vectors.size;
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const collection = this.collection(index);
    await this.call(index, () => this.client.createCollection(collection, { vectors: { size: vectorSize, distance: 'Cosine' } }));
    await this.call(index, () =>
      this.client.createPayloadIndex(collection, { field_name: PayloadFields.tags, field_schema: 'keyword', wait: true }),
    );
  }

  async listIndexes(): Promise<string[]> {
    const { collections } = await this.call('', () => this.client.getCollections());
    return indexNamesUnderPrefix(
      collections.map((c) => c.name),
      this.prefix,
    );
  }

  async deleteIndex(index: string): Promise<void> {
    await this.call(index, () => this.client.deleteCollection(this.collection(index)));
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    await this.call(index, () => this.client.upsert(this.collection(index), { wait: true, points: records.map(toPoint) }));
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const filter = toQdrantFilter(query.filters);
    const ef = this.options.hnswEf;
    const { points } = await this.call(index, () =>
      this.client.query(this.collection(index), {
        query: Array.from(query.vector!),
        ...(filter ? { filter } : {}),
        limit: query.limit,
        score_threshold: query.minRelevance,
        with_payload: true,
        with_vector: query.withEmbeddings,
        params: { exact: this.options.exactSearch ?? false, ...(ef ? { hnsw_ef: Math.max(query.limit, ef) } : {}) },
      }),
    );
    return points.map((p) => [toRecord(p, query.withEmbeddings), p.score ?? 0]);
  }

  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const filter = toQdrantFilter(query.filters);
    const { withEmbeddings, limit } = query;
    let records: MemoryRecord[];
    if (limit === undefined) {
      records = (await this.scroll(index, filter, true, withEmbeddings)).map((p) => toRecord(p, withEmbeddings));
    } else {
      // Qdrant scrolls in point-id order, not km-id order: read the ids, then fetch the first ones.
      const ids = (await this.scroll(index, filter, [PayloadFields.id], false))
        .map((p) => String(p.payload?.[PayloadFields.id] ?? ''))
        .sort(compareRecordIds)
        .slice(0, limit);
      if (ids.length === 0) return;
      const points = await this.call(index, () =>
        this.client.retrieve(this.collection(index), { ids: ids.map(pointIdOf), with_payload: true, with_vector: withEmbeddings }),
      );
      records = points.map((p) => toRecord(p, withEmbeddings));
    }
    yield* records.sort((a, b) => compareRecordIds(a.id, b.id));
  }

  async delete(index: string, id: string): Promise<void> {
    await this.call(index, () => this.client.delete(this.collection(index), { wait: true, points: [pointIdOf(id)] }));
  }

  /** The collection name of a normalised index. */
  collection(index: string): string {
    return `${this.prefix}${index}`;
  }

  /** Calls the client, turning its errors into km errors (a missing collection is IndexNotFoundError). */
  private async call<T>(index: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw translateQdrantError(error, index);
    }
  }

  private async scroll(
    index: string,
    filter: QdrantFilter | undefined,
    withPayload: boolean | string[],
    withVector: boolean,
  ): Promise<QdrantPoint[]> {
    const points: QdrantPoint[] = [];
    let offset: string | number | undefined;
    do {
      const page = await this.call(index, () =>
        this.client.scroll(this.collection(index), {
          ...(filter ? { filter } : {}),
          limit: SCROLL_PAGE,
          with_payload: withPayload,
          with_vector: withVector,
          ...(offset !== undefined ? { offset } : {}),
        }),
      );
      points.push(...page.points);
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    return points;
  }
}
