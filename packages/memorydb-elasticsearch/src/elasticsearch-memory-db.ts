import { Client, type estypes } from '@elastic/elasticsearch';
import {
  IndexNotFoundError,
  InvalidInputError,
  KmError,
  checkBatchForIndex,
  checkVectorRecord,
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
import { documentIdOf } from './document-id.js';
import type { ElasticsearchMemoryDbOptions } from './elasticsearch-config.js';
import { bulkItemError, errorType, isMissingIndex, translateElasticsearchError } from './elasticsearch-errors.js';
import { TAGS_FIELD, toElasticsearchFilter } from './elasticsearch-filters.js';
import { checkIndexPrefix, elasticsearchIndexName } from './index-names.js';
import { relevanceFromScore } from './relevance.js';

const CONNECTOR = 'elasticsearch';
/** dense_vector's largest indexed size in Elasticsearch 8.11+. */
const MAX_DIMS = 4096;
/** Elasticsearch's ceiling for k, num_candidates and a page of hits. */
const MAX_WINDOW = 10_000;
const LIST_PAGE = 1000;

/** A km record as an Elasticsearch document. */
export interface ElasticsearchRecord {
  id: string;
  tags: string[];
  payload: Record<string, unknown>;
  content: string;
  embedding?: number[];
}

/**
 * Memory records in Elasticsearch 8: one index per km index (`{prefix}{name}`), mapped as `id`
 * keyword, `tags` keyword (`key:value`), `payload` kept in `_source` but not indexed, `content`
 * text (the partition's text, for lexical search), `embedding` dense_vector with cosine
 * similarity and an HNSW graph. Similarity search is a kNN query whose filter is applied during
 * the graph search (so filtered results are the top k among matching records, not a
 * post-filter), and relevance is converted from Elasticsearch's `(1 + cos) / 2` score back to
 * the cosine. Writes use the bulk API.
 *
 * ```ts
 * const db = new ElasticsearchMemoryDb({ node: 'http://127.0.0.1:9200', apiKey: process.env.ES_API_KEY });
 * ```
 */
export class ElasticsearchMemoryDb implements IMemoryDb {
  readonly name = CONNECTOR;
  /** Longest index name, in UTF-8 bytes: Elasticsearch index names hold 255 bytes, less the prefix. */
  readonly maxIndexNameLength: number;
  readonly capabilities: MemoryDbCapabilities = { nativeBatch: true, negatedFilters: true, vectorSearch: true };
  private readonly options: ElasticsearchMemoryDbOptions;
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  /** Vector size of each index seen to exist, so writes are checked before they are sent. */
  private readonly dims = new Map<string, number>();

  constructor(options: ElasticsearchMemoryDbOptions) {
    if (!options.client && !options.node && !options.cloudId) {
      throw new InvalidInputError('invalid_argument', 'give ElasticsearchMemoryDb a client, a node URL or a cloudId', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.prefix = checkIndexPrefix(options.indexPrefix ?? 'km-');
    this.maxIndexNameLength = 255 - Buffer.byteLength(this.prefix, 'utf8');
    this.ownsClient = !options.client;
    this.client = options.client ?? new Client(clientOptions(options));
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const name = normalizeIndexName(index);
    if (!Number.isInteger(vectorSize) || vectorSize <= 0 || vectorSize > MAX_DIMS) {
      throw new InvalidInputError('invalid_argument', `vector size must be an integer in 1..${MAX_DIMS}, got ${vectorSize}`, {
        connector: CONNECTOR,
      });
    }
    const target = this.indexName(name);
    let size = await this.vectorSize(name);
    if (size === undefined) {
      try {
        await this.client.indices.create({ index: target, mappings: this.mappings(vectorSize), settings: this.settings() });
        this.dims.set(name, vectorSize);
        size = vectorSize;
      } catch (error) {
        // A concurrent creator won the race: check what it made.
        if (errorType(error) !== 'resource_already_exists_exception') throw translateElasticsearchError(error, name);
        size = await this.vectorSize(name);
        if (size === undefined) throw translateElasticsearchError(error, name);
      }
    }
    if (size !== vectorSize) {
      throw new KmError('vector_size_mismatch', `index "${name}" has vector size ${size}, got ${vectorSize}`, { connector: CONNECTOR });
    }
  }

  async getIndexes(): Promise<string[]> {
    let rows: Array<{ index?: string }>;
    try {
      rows = (await this.client.cat.indices({ index: `${this.prefix}*`, h: 'index', format: 'json', expand_wildcards: 'open' })) as Array<{
        index?: string;
      }>;
    } catch (error) {
      if (isMissingIndex(error)) return [];
      throw translateElasticsearchError(error, '');
    }
    return indexNamesUnderPrefix(
      rows.map((r) => r.index ?? ''),
      this.prefix,
    );
  }

  async deleteIndex(index: string): Promise<void> {
    const name = normalizeIndexName(index);
    this.dims.delete(name);
    try {
      await this.client.indices.delete({
        index: this.indexName(name),
        ignore_unavailable: true,
        allow_no_indices: true,
        expand_wildcards: 'none',
      });
    } catch (error) {
      if (!isMissingIndex(error)) throw translateElasticsearchError(error, name);
    }
  }

  async upsert(index: string, record: MemoryRecord): Promise<string> {
    return (await this.upsertBatch(index, [record]))[0]!;
  }

  async upsertBatch(index: string, records: MemoryRecord[]): Promise<string[]> {
    const name = normalizeIndexName(index);
    const target = this.indexName(name);
    const checked = records.map((r) => checkVectorRecord(r, CONNECTOR));
    if (checked.length === 0) return [];
    const size = await this.vectorSize(name);
    // Checked before the write: a bulk request to a missing index would create it with a guessed mapping.
    if (size === undefined) throw new IndexNotFoundError(name, { connector: CONNECTOR });
    const unique = checkBatchForIndex(checked, size, name, CONNECTOR);
    for (const r of unique) {
      if (l2norm(r.vector) === 0) {
        throw new InvalidInputError('invalid_argument', `record "${r.id}" has a zero vector, which has no cosine similarity`, {
          connector: CONNECTOR,
        });
      }
    }
    const batchSize = Math.max(1, this.options.batchSize ?? 500);
    for (let i = 0; i < unique.length; i += batchSize) {
      const batch = unique.slice(i, i + batchSize);
      let response: estypes.BulkResponse;
      try {
        response = await this.client.bulk({
          refresh: this.options.refresh ?? 'wait_for',
          require_alias: false,
          operations: batch.flatMap((r) => [{ index: { _index: target, _id: documentIdOf(r.id) } }, toDocument(r)]),
        });
      } catch (error) {
        throw translateElasticsearchError(error, name);
      }
      if (response.errors) {
        const failed = response.items.map((item) => Object.values(item)[0]!).find((result) => result.error);
        throw bulkItemError({ status: failed?.status ?? 0, error: failed?.error ?? {} }, name);
      }
    }
    return checked.map((r) => r.id);
  }

  async *getSimilarList(
    index: string,
    query: string | Float32Array | number[],
    options: SimilarityOptions = {},
  ): AsyncIterable<[MemoryRecord, number]> {
    const name = normalizeIndexName(index);
    const target = this.indexName(name);
    const vector = await resolveQueryVector(query, this.options.embeddingGenerator, CONNECTOR, options.signal);
    if (l2norm(vector) === 0) return;
    const filter = toElasticsearchFilter(options.filters);
    const k = Math.min(MAX_WINDOW, searchLimit(options.limit, this.options.maxSearchResults ?? 100));
    const numCandidates = Math.min(MAX_WINDOW, Math.max(k, this.options.numCandidates ?? Math.max(100, 2 * k)));
    const minRelevance = options.minRelevance ?? 0;
    let hits: Array<estypes.SearchHit<ElasticsearchRecord>>;
    try {
      const response = await this.client.search<ElasticsearchRecord>(
        {
          index: target,
          knn: {
            field: 'embedding',
            query_vector: Array.from(vector),
            k,
            num_candidates: numCandidates,
            ...(filter ? { filter } : {}),
            // For cosine, `similarity` is the raw cosine (not the score): records below it are not candidates.
            ...(minRelevance > -1 ? { similarity: minRelevance } : {}),
          },
          size: k,
          _source: { excludes: options.withEmbeddings ? ['content'] : ['content', 'embedding'] },
          ignore_unavailable: true,
          allow_no_indices: true,
          track_total_hits: false,
        },
        { signal: options.signal },
      );
      hits = response.hits.hits;
    } catch (error) {
      if (isMissingIndex(error)) return;
      throw translateElasticsearchError(error, name);
    }
    const results = rankResults(
      hits
        .filter((hit) => hit._source)
        .map((hit): [MemoryRecord, number] => [toRecord(hit._source!), relevanceFromScore(hit._score ?? 0)])
        .filter(([, relevance]) => relevance >= minRelevance),
    );
    for (const result of results) yield result;
  }

  async *getList(index: string, options: ListOptions = {}): AsyncIterable<MemoryRecord> {
    const name = normalizeIndexName(index);
    const target = this.indexName(name);
    const filter = toElasticsearchFilter(options.filters);
    const limit = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : Infinity;
    let after: estypes.SortResults | undefined;
    let returned = 0;
    while (returned < limit) {
      const size = Math.min(LIST_PAGE, limit - returned);
      let hits: Array<estypes.SearchHit<ElasticsearchRecord>>;
      try {
        const response = await this.client.search<ElasticsearchRecord>({
          index: target,
          query: filter ?? { match_all: {} },
          sort: [{ id: 'asc' }],
          size,
          ...(after ? { search_after: after } : {}),
          _source: { excludes: options.withEmbeddings ? ['content'] : ['content', 'embedding'] },
          ignore_unavailable: true,
          allow_no_indices: true,
          track_total_hits: false,
        });
        hits = response.hits.hits;
      } catch (error) {
        if (isMissingIndex(error)) return;
        throw translateElasticsearchError(error, name);
      }
      for (const hit of hits) {
        if (hit._source) yield toRecord(hit._source);
        returned++;
      }
      if (hits.length < size) return;
      after = hits[hits.length - 1]!.sort;
    }
  }

  async delete(index: string, record: { id: string }): Promise<void> {
    const name = normalizeIndexName(index);
    if (typeof record?.id !== 'string' || record.id.length === 0) {
      throw new InvalidInputError('invalid_argument', 'record id must be a non-empty string', { connector: CONNECTOR });
    }
    try {
      await this.client.delete(
        { index: this.indexName(name), id: documentIdOf(record.id), refresh: this.options.refresh ?? 'wait_for' },
        { ignore: [404] },
      );
    } catch (error) {
      if (!isMissingIndex(error)) throw translateElasticsearchError(error, name);
    }
  }

  /** Closes the client the connector built (a client given in is left open). */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** The Elasticsearch index of a km index name. */
  indexName(index: string): string {
    return elasticsearchIndexName(this.prefix, normalizeIndexName(index));
  }

  /** The mapping of a new index. */
  mappings(vectorSize: number): estypes.MappingTypeMapping {
    return {
      dynamic: 'strict',
      properties: {
        id: { type: 'keyword' },
        [TAGS_FIELD]: { type: 'keyword' },
        payload: { type: 'object', enabled: false },
        content: { type: 'text' },
        embedding: {
          type: 'dense_vector',
          dims: vectorSize,
          index: true,
          similarity: 'cosine',
          // Plain HNSW on float vectors: quantised graphs (Elasticsearch's default for large
          // vectors) would move relevance away from the exact cosine.
          index_options: { type: 'hnsw', m: this.options.hnsw?.m ?? 16, ef_construction: this.options.hnsw?.efConstruction ?? 100 },
        },
      },
    };
  }

  private settings(): estypes.IndicesIndexSettings {
    return {
      ...(this.options.numberOfShards ? { number_of_shards: this.options.numberOfShards } : {}),
      ...(this.options.numberOfReplicas !== undefined ? { number_of_replicas: this.options.numberOfReplicas } : {}),
    };
  }

  /** The index's vector size, or undefined when it does not exist (cached once seen). */
  private async vectorSize(name: string): Promise<number | undefined> {
    const known = this.dims.get(name);
    if (known !== undefined) return known;
    const target = this.indexName(name);
    try {
      const mapping = await this.client.indices.getMapping({ index: target });
      const embedding = mapping[target]?.mappings.properties?.embedding as { dims?: number } | undefined;
      if (typeof embedding?.dims !== 'number') {
        throw new KmError('invalid_argument', `Elasticsearch index "${target}" has no km mapping (no embedding dense_vector)`, {
          connector: CONNECTOR,
        });
      }
      this.dims.set(name, embedding.dims);
      return embedding.dims;
    } catch (error) {
      if (isMissingIndex(error)) return undefined;
      throw translateElasticsearchError(error, name);
    }
  }
}

/** The Elasticsearch document of a checked record. */
export function toDocument(record: CheckedRecord): ElasticsearchRecord {
  const payload = JSON.parse(record.payloadJson) as Record<string, unknown>;
  return {
    id: record.id,
    [TAGS_FIELD]: encodeTags(record.tags),
    payload,
    content: typeof payload.text === 'string' ? payload.text : '',
    embedding: Array.from(record.vector),
  };
}

/** The km record of a document's `_source`. */
export function toRecord(source: ElasticsearchRecord): MemoryRecord {
  return {
    id: source.id,
    vector: Array.isArray(source.embedding) ? Float32Array.from(source.embedding) : new Float32Array(0),
    tags: decodeTags(Array.isArray(source.tags) ? source.tags : []),
    payload: source.payload !== null && typeof source.payload === 'object' ? source.payload : {},
  };
}

function clientOptions(options: ElasticsearchMemoryDbOptions): ConstructorParameters<typeof Client>[0] {
  const auth = options.apiKey
    ? { apiKey: options.apiKey }
    : options.username !== undefined
      ? { username: options.username, password: options.password ?? '' }
      : undefined;
  return {
    ...(options.cloudId ? { cloud: { id: options.cloudId } } : { node: options.node! }),
    ...(auth ? { auth } : {}),
    ...(options.caFingerprint ? { caFingerprint: options.caFingerprint } : {}),
    ...(options.ca ? { tls: { ca: options.ca } } : {}),
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 3,
  };
}
