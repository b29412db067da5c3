import { Client, type estypes } from '@elastic/elasticsearch';
import { InvalidInputError, KmError, type MemoryRecord } from '@km/core';
import { indexNameLimit, indexNamesUnderPrefix } from '@km/core/connector';
import type { CheckedRecord, DriverLexicalSearch, DriverList, DriverSearch, MemoryDbDriver } from '@km/core/connector';
import { documentIdOf } from './document-id.js';
import { clientOptions, type ElasticsearchMemoryDbOptions } from './elasticsearch-config.js';
import { bulkItemError, errorType, isMissingIndex, translateElasticsearchError } from './elasticsearch-errors.js';
import { toElasticsearchFilter } from './elasticsearch-filters.js';
import { checkIndexPrefix, elasticsearchIndexName, MAX_ELASTICSEARCH_INDEX_BYTES } from './index-names.js';
import { indexMappings, indexSettings } from './elasticsearch-mapping.js';
import { lexicalScore, lexicalSearchRequest } from './elasticsearch-lexical.js';
import { sourceFilter, toDocument, toRecord, type ElasticsearchRecord } from './elasticsearch-records.js';
import { relevanceFromScore } from './relevance.js';

const CONNECTOR = 'elasticsearch';
/** Elasticsearch's ceiling for k, num_candidates and a page of hits. */
const MAX_WINDOW = 10_000;
const LIST_PAGE = 1000;

type Hit = estypes.SearchHit<ElasticsearchRecord>;

/**
 * The Elasticsearch 8 driver of {@link ElasticsearchMemoryDb}: one index per km index
 * (`{prefix}{name}`), mapped as `id` keyword, `tags` keyword (`key:value`), `payload` kept in
 * `_source` but not indexed, `content` text (the partition's text, for lexical search),
 * `embedding` dense_vector with cosine similarity and an HNSW graph. Lexical search is a BM25
 * `match` query on `content` (hence the `lexicalSearch` capability). Similarity search is a kNN
 * query whose filter is applied during the graph search (filtered results are the top k among
 * matching records, not a post-filter); relevance is converted back from Elasticsearch's
 * `(1 + cos) / 2` score to the cosine. Writes use the bulk API.
 */
export class ElasticsearchMemoryDbDriver implements MemoryDbDriver {
  readonly name = CONNECTOR;
  /** A zero vector has no cosine: Elasticsearch refuses to index it. */
  readonly capabilities = { zeroVectors: false };
  readonly indexNameLimit: { bytes: number; reason: string };
  /** dense_vector's largest indexed size in Elasticsearch 8.11+. */
  readonly maxVectorSize = 4096;
  readonly maxBatchSize: number;
  private readonly options: ElasticsearchMemoryDbOptions;
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(options: ElasticsearchMemoryDbOptions) {
    if (!options.client && !options.node && !options.cloudId) {
      throw new InvalidInputError('invalid_argument', 'give ElasticsearchMemoryDb a client, a node URL or a cloudId', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.prefix = checkIndexPrefix(options.indexPrefix ?? 'km-');
    this.indexNameLimit = indexNameLimit('Elasticsearch index names', MAX_ELASTICSEARCH_INDEX_BYTES, this.prefix);
    this.maxBatchSize = Math.max(1, options.batchSize ?? 500);
    this.ownsClient = !options.client;
    this.client = options.client ?? new Client(clientOptions(options));
  }

  async vectorSize(index: string): Promise<number | undefined> {
    const target = this.indexName(index);
    let mapping: estypes.IndicesGetMappingResponse;
    try {
      mapping = await this.client.indices.getMapping({ index: target });
    } catch (error) {
      if (isMissingIndex(error)) return undefined;
      throw translateElasticsearchError(error, index);
    }
    const embedding = mapping[target]?.mappings.properties?.embedding as { dims?: number } | undefined;
    if (typeof embedding?.dims !== 'number') {
      throw new KmError('invalid_argument', `Elasticsearch index "${target}" has no km mapping (no embedding dense_vector)`, {
        connector: CONNECTOR,
      });
    }
    return embedding.dims;
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    try {
      await this.client.indices.create({
        index: this.indexName(index),
        mappings: indexMappings(vectorSize, this.options.hnsw),
        settings: indexSettings(this.options),
      });
    } catch (error) {
      // A concurrent creator won the race: core then checks what it made.
      if (errorType(error) === 'resource_already_exists_exception') throw error;
      throw translateElasticsearchError(error, index);
    }
  }

  async listIndexes(): Promise<string[]> {
    const rows = (await this.call('', () =>
      this.client.cat.indices({ index: `${this.prefix}*`, h: 'index', format: 'json', expand_wildcards: 'open' }),
    )) as Array<{ index?: string }>;
    return indexNamesUnderPrefix(
      rows.map((r) => r.index ?? ''),
      this.prefix,
    );
  }

  async deleteIndex(index: string): Promise<void> {
    await this.call(index, () =>
      this.client.indices.delete({
        index: this.indexName(index),
        ignore_unavailable: true,
        allow_no_indices: true,
        expand_wildcards: 'none',
      }),
    );
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    const target = this.indexName(index);
    const response = await this.call(index, () =>
      this.client.bulk({
        refresh: this.options.refresh ?? 'wait_for',
        require_alias: false,
        operations: records.flatMap((r) => [{ index: { _index: target, _id: documentIdOf(r.id) } }, toDocument(r)]),
      }),
    );
    if (response.errors) {
      const failed = response.items.map((item) => Object.values(item)[0]!).find((result) => result.error);
      throw bulkItemError({ status: failed?.status ?? 0, error: failed?.error ?? {} }, index);
    }
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const filter = toElasticsearchFilter(query.filters);
    const k = Math.min(MAX_WINDOW, query.limit);
    const numCandidates = Math.min(MAX_WINDOW, Math.max(k, this.options.numCandidates ?? Math.max(100, 2 * k)));
    const hits = await this.hits(index, query.signal, {
      knn: {
        field: 'embedding',
        query_vector: Array.from(query.vector!),
        k,
        num_candidates: numCandidates,
        ...(filter ? { filter } : {}),
        // For cosine, `similarity` is the raw cosine (not the score): records below it are not candidates.
        ...(query.minRelevance > -1 ? { similarity: query.minRelevance } : {}),
      },
      size: k,
      _source: sourceFilter(query.withEmbeddings),
    });
    return hits.map((hit): [MemoryRecord, number] => [toRecord(hit._source!), relevanceFromScore(hit._score ?? 0)]);
  }

  /** A BM25 `match` query on `content` (see {@link lexicalSearchRequest}), scores mapped to [0, 1) by {@link lexicalScore}. */
  async lexicalSearch(index: string, query: DriverLexicalSearch): Promise<Array<[MemoryRecord, number]>> {
    const hits = await this.hits(index, query.signal, lexicalSearchRequest(query));
    return hits.map((hit): [MemoryRecord, number] => [toRecord(hit._source!), lexicalScore(hit._score ?? 0)]);
  }

  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const filter = toElasticsearchFilter(query.filters);
    const limit = query.limit ?? Infinity;
    let after: estypes.SortResults | undefined;
    for (let returned = 0; returned < limit; ) {
      const size = Math.min(LIST_PAGE, limit - returned);
      const hits = await this.hits(index, query.signal, {
        query: filter ?? { match_all: {} },
        sort: [{ id: 'asc' }],
        size,
        ...(after ? { search_after: after } : {}),
        _source: sourceFilter(query.withEmbeddings),
      });
      for (const hit of hits) yield toRecord(hit._source!);
      returned += hits.length;
      if (hits.length < size) return;
      after = hits[hits.length - 1]!.sort;
    }
  }

  async delete(index: string, id: string): Promise<void> {
    await this.call(index, () =>
      this.client.delete(
        { index: this.indexName(index), id: documentIdOf(id), refresh: this.options.refresh ?? 'wait_for' },
        { ignore: [404] },
      ),
    );
  }

  /** Closes the client the connector built (a client given in is left open). */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** The Elasticsearch index of a normalised km index name. */
  indexName(index: string): string {
    return elasticsearchIndexName(this.prefix, index);
  }

  /** Runs a search on the index; hits without `_source` are dropped. */
  private async hits(index: string, signal: AbortSignal | undefined, request: estypes.SearchRequest): Promise<Hit[]> {
    const search = { index: this.indexName(index), ignore_unavailable: true, allow_no_indices: true, track_total_hits: false, ...request };
    const response = await this.call(index, () => this.client.search<ElasticsearchRecord>(search, signal ? { signal } : {}));
    return response.hits.hits.filter((hit) => hit._source);
  }

  /** Calls the client, turning its errors into km errors (a missing index is IndexNotFoundError). */
  private async call<T>(index: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw translateElasticsearchError(error, index);
    }
  }
}
