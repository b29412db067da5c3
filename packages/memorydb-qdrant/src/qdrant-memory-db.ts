import {
  IndexNotFoundError,
  InvalidInputError,
  KmError,
  checkBatchForIndex,
  checkVectorRecord,
  compareRecordIds,
  decodeTags,
  encodeTags,
  indexNamesUnderPrefix,
  l2norm,
  normalizeIndexName,
  rankResults,
  resolveQueryVector,
  searchLimit,
  type CheckedRecord,
  type IMemoryDb,
  type ListOptions,
  type MemoryDbCapabilities,
  type MemoryRecord,
  type SimilarityOptions,
} from '@km/core';
import { QdrantClient } from '@qdrant/js-client-rest';
import { PayloadFields } from './payload-fields.js';
import { pointIdOf } from './point-id.js';
import type { QdrantMemoryDbOptions } from './qdrant-config.js';
import { toQdrantFilter, type QdrantFilter } from './qdrant-filters.js';
import { httpStatus, isMissingCollection, translateQdrantError } from './qdrant-errors.js';

const CONNECTOR = 'qdrant';
/** Qdrant's largest dense vector. */
const MAX_VECTOR_SIZE = 65536;
const SCROLL_PAGE = 256;

/** A point as Qdrant returns it (the fields km reads). */
interface QdrantPoint {
  id: string | number;
  score?: number;
  payload?: Record<string, unknown> | null;
  vector?: unknown;
}

/**
 * Memory records in Qdrant: one collection per index (cosine distance, the size given to
 * createIndex), a point per record whose UUID is derived from the km id (see {@link pointIdOf}),
 * the km id, `key:value` tags (keyword payload index) and payload in the point's payload.
 * Relevance is Qdrant's cosine score. Filters become Qdrant filters, applied during the HNSW
 * search.
 *
 * Qdrant stores cosine vectors normalised; km keeps the original length in the payload (`norm`)
 * and gives the vector back as it was written.
 *
 * ```ts
 * const db = new QdrantMemoryDb({ url: 'http://127.0.0.1:6333', apiKey: process.env.QDRANT_API_KEY });
 * ```
 */
export class QdrantMemoryDb implements IMemoryDb {
  readonly name = CONNECTOR;
  /** Longest index name, in UTF-8 bytes: Qdrant collection names hold 255 bytes, less the prefix. */
  readonly maxIndexNameLength: number;
  readonly capabilities: MemoryDbCapabilities = { nativeBatch: true, negatedFilters: true, vectorSearch: true };
  private readonly options: QdrantMemoryDbOptions;
  private readonly client: QdrantClient;
  private readonly prefix: string;
  /** Vector size of each collection seen to exist, so writes are checked before they are sent. */
  private readonly vectorSizes = new Map<string, number>();

  constructor(options: QdrantMemoryDbOptions) {
    if (!options.client && !options.url && !options.host) {
      throw new InvalidInputError('invalid_argument', 'give QdrantMemoryDb a client, a url or a host', { connector: CONNECTOR });
    }
    this.options = options;
    this.prefix = options.collectionPrefix ?? '';
    this.maxIndexNameLength = 255 - Buffer.byteLength(this.prefix, 'utf8');
    if (this.prefix && !/^[A-Za-z0-9_-]+$/.test(this.prefix)) {
      throw new InvalidInputError('invalid_argument', `collectionPrefix may hold letters, digits, "_" and "-" only, got "${this.prefix}"`, {
        connector: CONNECTOR,
      });
    }
    this.client =
      options.client ??
      new QdrantClient({
        ...(options.url ? { url: options.url } : { host: options.host!, port: options.port ?? 6333, https: options.https ?? false }),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        timeout: options.timeoutMs ?? 30_000,
        checkCompatibility: false,
      });
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const name = normalizeIndexName(index);
    if (!Number.isInteger(vectorSize) || vectorSize <= 0 || vectorSize > MAX_VECTOR_SIZE) {
      throw new InvalidInputError('invalid_argument', `vector size must be an integer in 1..${MAX_VECTOR_SIZE}, got ${vectorSize}`, {
        connector: CONNECTOR,
      });
    }
    const collection = this.collection(name);
    let size = await this.vectorSize(name);
    if (size === undefined) {
      try {
        await this.client.createCollection(collection, { vectors: { size: vectorSize, distance: 'Cosine' } });
        this.vectorSizes.set(name, vectorSize);
        size = vectorSize;
      } catch (error) {
        // A concurrent creator won the race (409, or 400 on older servers): check what it made.
        size = await this.vectorSize(name);
        if (size === undefined) throw translateQdrantError(error, name);
      }
    }
    if (size !== vectorSize) {
      throw new KmError('vector_size_mismatch', `index "${name}" has vector size ${size}, got ${vectorSize}`, { connector: CONNECTOR });
    }
    try {
      // Idempotent: creating the same payload index again changes nothing.
      await this.client.createPayloadIndex(collection, { field_name: PayloadFields.tags, field_schema: 'keyword', wait: true });
    } catch (error) {
      throw translateQdrantError(error, name);
    }
  }

  async getIndexes(): Promise<string[]> {
    let collections: Array<{ name: string }>;
    try {
      ({ collections } = await this.client.getCollections());
    } catch (error) {
      throw translateQdrantError(error, '');
    }
    return indexNamesUnderPrefix(
      collections.map((c) => c.name),
      this.prefix,
    );
  }

  async deleteIndex(index: string): Promise<void> {
    const name = normalizeIndexName(index);
    this.vectorSizes.delete(name);
    try {
      await this.client.deleteCollection(this.collection(name));
    } catch (error) {
      if (!isMissingCollection(error)) throw translateQdrantError(error, name);
    }
  }

  async upsert(index: string, record: MemoryRecord): Promise<string> {
    return (await this.upsertBatch(index, [record]))[0]!;
  }

  async upsertBatch(index: string, records: MemoryRecord[]): Promise<string[]> {
    const name = normalizeIndexName(index);
    const checked = records.map((r) => checkVectorRecord(r, CONNECTOR));
    if (checked.length === 0) return [];
    const size = await this.vectorSize(name);
    if (size === undefined) throw new IndexNotFoundError(name, { connector: CONNECTOR });
    const unique = checkBatchForIndex(checked, size, name, CONNECTOR);
    const batchSize = Math.max(1, this.options.batchSize ?? 256);
    try {
      for (let i = 0; i < unique.length; i += batchSize) {
        await this.client.upsert(this.collection(name), { wait: true, points: unique.slice(i, i + batchSize).map(toPoint) });
      }
    } catch (error) {
      if (isMissingCollection(error)) this.vectorSizes.delete(name);
      throw translateQdrantError(error, name);
    }
    return checked.map((r) => r.id);
  }

  async *getSimilarList(
    index: string,
    query: string | Float32Array | number[],
    options: SimilarityOptions = {},
  ): AsyncIterable<[MemoryRecord, number]> {
    const name = normalizeIndexName(index);
    const vector = await resolveQueryVector(query, this.options.embeddingGenerator, CONNECTOR, options.signal);
    const filter = toQdrantFilter(options.filters);
    const limit = searchLimit(options.limit, this.options.maxSearchResults ?? 100);
    const minRelevance = options.minRelevance ?? 0;
    let points: QdrantPoint[];
    try {
      ({ points } = await this.client.query(this.collection(name), {
        query: Array.from(vector),
        ...(filter ? { filter } : {}),
        limit,
        score_threshold: minRelevance,
        with_payload: true,
        with_vector: options.withEmbeddings ?? false,
        params: {
          exact: this.options.exactSearch ?? false,
          ...(this.options.hnswEf ? { hnsw_ef: Math.max(limit, this.options.hnswEf) } : {}),
        },
      }));
    } catch (error) {
      if (isMissingCollection(error)) return;
      throw translateQdrantError(error, name);
    }
    const results = rankResults(
      points
        .map((p): [MemoryRecord, number] => [toRecord(p, options.withEmbeddings ?? false), p.score ?? 0])
        .filter(([, score]) => score >= minRelevance),
    );
    for (const result of results) yield result;
  }

  async *getList(index: string, options: ListOptions = {}): AsyncIterable<MemoryRecord> {
    const name = normalizeIndexName(index);
    const filter = toQdrantFilter(options.filters);
    const withVector = options.withEmbeddings ?? false;
    const limit = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : 0;
    let records: MemoryRecord[];
    try {
      if (limit === 0) {
        records = (await this.scroll(name, filter, true, withVector)).map((p) => toRecord(p, withVector));
        records.sort((a, b) => compareRecordIds(a.id, b.id));
      } else {
        // Qdrant scrolls in point-id order, not km-id order: read the ids, then fetch the first ones.
        const ids = (await this.scroll(name, filter, [PayloadFields.id], false))
          .map((p) => String(p.payload?.[PayloadFields.id] ?? ''))
          .sort(compareRecordIds)
          .slice(0, limit);
        if (ids.length === 0) return;
        const points = await this.client.retrieve(this.collection(name), {
          ids: ids.map(pointIdOf),
          with_payload: true,
          with_vector: withVector,
        });
        records = points.map((p) => toRecord(p, withVector)).sort((a, b) => compareRecordIds(a.id, b.id));
      }
    } catch (error) {
      if (isMissingCollection(error)) return;
      throw translateQdrantError(error, name);
    }
    for (const record of records) yield record;
  }

  async delete(index: string, record: { id: string }): Promise<void> {
    const name = normalizeIndexName(index);
    if (typeof record?.id !== 'string' || record.id.length === 0) {
      throw new InvalidInputError('invalid_argument', 'record id must be a non-empty string', { connector: CONNECTOR });
    }
    try {
      await this.client.delete(this.collection(name), { wait: true, points: [pointIdOf(record.id)] });
    } catch (error) {
      if (!isMissingCollection(error)) throw translateQdrantError(error, name);
    }
  }

  /** The collection name of a normalised index. */
  collection(index: string): string {
    return `${this.prefix}${index}`;
  }

  private async scroll(
    name: string,
    filter: QdrantFilter | undefined,
    withPayload: boolean | string[],
    withVector: boolean,
  ): Promise<QdrantPoint[]> {
    const points: QdrantPoint[] = [];
    let offset: string | number | undefined;
    do {
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

  /** The collection's vector size, or undefined when it does not exist (cached once seen). */
  private async vectorSize(name: string): Promise<number | undefined> {
    const known = this.vectorSizes.get(name);
    if (known !== undefined) return known;
    try {
      const info = await this.client.getCollection(this.collection(name));
      const vectors = info.config.params.vectors as { size?: number } | undefined;
      if (typeof vectors?.size !== 'number') {
        throw new KmError(
          'invalid_argument',
          `collection "${this.collection(name)}" has named vectors; km needs one unnamed cosine vector`,
          {
            connector: CONNECTOR,
          },
        );
      }
      this.vectorSizes.set(name, vectors.size);
      return vectors.size;
    } catch (error) {
      if (isMissingCollection(error) || httpStatus(error) === 404) return undefined;
      throw translateQdrantError(error, name);
    }
  }
}

/** The Qdrant point of a checked record. */
export function toPoint(record: CheckedRecord): { id: string; vector: number[]; payload: Record<string, unknown> } {
  return {
    id: pointIdOf(record.id),
    vector: Array.from(record.vector),
    payload: {
      [PayloadFields.id]: record.id,
      [PayloadFields.tags]: encodeTags(record.tags),
      [PayloadFields.payload]: JSON.parse(record.payloadJson) as unknown,
      [PayloadFields.norm]: l2norm(record.vector),
    },
  };
}

/** The km record of a Qdrant point; the vector is scaled back to its original length. */
export function toRecord(point: QdrantPoint, withVector: boolean): MemoryRecord {
  const payload = point.payload ?? {};
  let vector = new Float32Array(0);
  if (withVector && Array.isArray(point.vector)) {
    const norm = typeof payload[PayloadFields.norm] === 'number' ? (payload[PayloadFields.norm] as number) : 1;
    vector = Float32Array.from(point.vector as number[], (x) => x * norm);
  }
  const tags = payload[PayloadFields.tags];
  const data = payload[PayloadFields.payload];
  return {
    id: String(payload[PayloadFields.id] ?? point.id),
    vector,
    tags: decodeTags(Array.isArray(tags) ? tags.map(String) : []),
    payload: data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {},
  };
}
