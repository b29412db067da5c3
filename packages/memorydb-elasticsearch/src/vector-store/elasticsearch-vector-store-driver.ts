import { Client, type estypes } from '@elastic/elasticsearch';
import { InvalidInputError, KmError, type KeyValue, type RecordDefinition } from '@km/core';
import type { DriverRecordQuery, DriverVectorQuery, StorageRecord, VectorStoreDriver } from '@km/core/connector';
import { clientOptions } from '../elasticsearch-config.js';
import { bulkItemError, errorType, isMissingIndex, statusOf, translateElasticsearchError } from '../elasticsearch-errors.js';
import { indexSettings } from '../elasticsearch-mapping.js';
import { checkIndexPrefix, MAX_ELASTICSEARCH_INDEX_BYTES } from '../index-names.js';
import {
  documentIdOfKey,
  fromElasticsearchDocument,
  toElasticsearchDocument,
  vectorSourceExcludes,
} from './elasticsearch-vector-documents.js';
import { collectionOfIndex, indexOfCollection } from './elasticsearch-vector-index-names.js';
import { checkExistingMapping, vectorIndexMappings } from './elasticsearch-vector-mapping.js';
import { knnSearchRequest, recordQueryRequest } from './elasticsearch-vector-requests.js';
import { scoreFromElasticsearch } from './elasticsearch-vector-scores.js';
import type { ElasticsearchVectorStoreOptions } from './elasticsearch-vector-store-options.js';

const CONNECTOR = 'elasticsearch';

type Source = Record<string, unknown>;

/**
 * The Elasticsearch 8 driver of {@link ElasticsearchVectorStore}: one index per km collection
 * (`{prefix}{name}`, upper-case letters encoded, see {@link indexOfCollection}) with a strict
 * mapping made from the definition (see {@link vectorIndexMappings}), a document per record whose
 * `_id` is the key's string form, writes through the bulk API (`refresh=wait_for` by default),
 * kNN searches with the filter inside `knn.filter` (applied during the graph search, not after),
 * and `_score`s converted back to km's convention (see {@link scoreFromElasticsearch}).
 */
export class ElasticsearchVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly collectionNameLimit: { bytes: number; reason: string };
  /** dense_vector's largest indexed size in Elasticsearch 8.11+. */
  readonly maxDimensions = 4096;
  readonly maxBatchSize: number;
  private readonly options: ElasticsearchVectorStoreOptions;
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(options: ElasticsearchVectorStoreOptions) {
    if (!options.client && !options.node && !options.cloudId) {
      throw new InvalidInputError('invalid_argument', 'give ElasticsearchVectorStore a client, a node URL or a cloudId', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.prefix = checkIndexPrefix(options.indexPrefix ?? '');
    const prefixBytes = Buffer.byteLength(this.prefix, 'utf8');
    this.collectionNameLimit = {
      bytes: MAX_ELASTICSEARCH_INDEX_BYTES - prefixBytes,
      reason: `Elasticsearch index names hold ${MAX_ELASTICSEARCH_INDEX_BYTES} bytes and the prefix "${this.prefix}" takes ${prefixBytes}`,
    };
    this.maxBatchSize = Math.max(1, options.batchSize ?? 500);
    this.ownsClient = !options.client;
    this.client = options.client ?? new Client(clientOptions(options));
  }

  async listCollections(): Promise<string[]> {
    const rows = (await this.call('', () =>
      this.client.cat.indices({ index: `${this.prefix}*`, h: 'index', format: 'json', expand_wildcards: 'open' }),
    )) as Array<{ index?: string }>;
    const names = rows.map((r) => collectionOfIndex(this.prefix, r.index ?? '')).filter((n): n is string => n !== undefined);
    return [...new Set(names)].sort();
  }

  async collectionExists(name: string): Promise<boolean> {
    return this.call(name, () => this.client.indices.exists({ index: this.indexName(name) }));
  }

  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    const index = this.indexName(name);
    const existing = await this.mappingOf(name);
    if (existing !== undefined) return checkExistingMapping(index, definition, existing);
    try {
      await this.client.indices.create({
        index,
        mappings: vectorIndexMappings(definition, this.options.hnsw),
        settings: indexSettings(this.options),
      });
    } catch (error) {
      if (errorType(error) === 'resource_already_exists_exception') {
        // Another creator won the race: check what it made.
        return checkExistingMapping(index, definition, await this.mappingOf(name));
      }
      if (statusOf(error) === 400) {
        // Elasticsearch refused the mapping itself (a field name, a vector size or similarity).
        throw new InvalidInputError('invalid_argument', `Elasticsearch refused index "${index}": ${reasonOf(error)}`, {
          connector: CONNECTOR,
          cause: error,
        });
      }
      throw this.translate(error, name);
    }
  }

  async deleteCollection(name: string): Promise<void> {
    await this.call(name, () =>
      this.client.indices.delete({
        index: this.indexName(name),
        ignore_unavailable: true,
        allow_no_indices: true,
        expand_wildcards: 'none',
      }),
    );
  }

  /**
   * Bulk `index` actions. The index is checked first: a bulk write to a missing index would
   * create it with a dynamic mapping instead of failing.
   */
  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void> {
    const index = await this.existingIndex(name);
    const key = definition.key.storageName;
    await this.bulk(
      name,
      records.flatMap((r) => [
        { index: { _index: index, _id: documentIdOfKey(r[key] as KeyValue) } },
        toElasticsearchDocument(definition, r),
      ]),
    );
  }

  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    if (keys.length === 0) return [];
    const excludes = vectorSourceExcludes(definition, includeVectors);
    let response: estypes.MgetResponse<Source>;
    try {
      response = await this.client.mget<Source>({
        index: this.indexName(name),
        ids: keys.map(documentIdOfKey),
        ...(excludes.length > 0 ? { _source_excludes: excludes } : {}),
      });
    } catch (error) {
      if (isMissingIndex(error)) return [];
      throw this.translate(error, name);
    }
    const records: StorageRecord[] = [];
    for (const doc of response.docs) {
      if ('error' in doc) {
        if (doc.error.type === 'index_not_found_exception') return [];
        throw this.translate({ name: 'ResponseError', meta: { statusCode: 500, body: { error: doc.error } } }, name);
      }
      if (doc.found && doc._source) records.push(fromElasticsearchDocument(definition, doc._id, doc._source, includeVectors));
    }
    return records;
  }

  async delete(name: string, _definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    const index = await this.existingIndex(name);
    if (keys.length === 0) return;
    await this.bulk(
      name,
      keys.map((k) => ({ delete: { _index: index, _id: documentIdOfKey(k) } })),
    );
  }

  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    const hits = await this.hits(name, query.signal, knnSearchRequest(definition, query, this.options.numCandidates));
    const { distance } = query.vectorProperty;
    return hits.map((hit): [StorageRecord, number] => [
      fromElasticsearchDocument(definition, hit._id, hit._source!, query.includeVectors),
      scoreFromElasticsearch(distance, hit._score ?? 0),
    ]);
  }

  /** Records matching the filter, sorted by the fields asked for (missing values last), then by the key. */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    const hits = await this.hits(name, query.signal, recordQueryRequest(definition, query));
    return hits.map((hit) => fromElasticsearchDocument(definition, hit._id, hit._source!, query.includeVectors));
  }

  /** Closes the client the connector built (a client given in is left open). */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** The Elasticsearch index of a km collection name. */
  indexName(name: string): string {
    return indexOfCollection(this.prefix, name);
  }

  /** The index of a collection that must exist (writes), else `collection_not_found`. */
  private async existingIndex(name: string): Promise<string> {
    if (!(await this.collectionExists(name))) throw collectionNotFound(name);
    return this.indexName(name);
  }

  /** The mapping of an existing index, undefined when it does not exist. */
  private async mappingOf(name: string): Promise<estypes.MappingTypeMapping | undefined> {
    const index = this.indexName(name);
    try {
      const response = await this.client.indices.getMapping({ index });
      return response[index]?.mappings ?? Object.values(response)[0]?.mappings ?? {};
    } catch (error) {
      if (isMissingIndex(error)) return undefined;
      throw this.translate(error, name);
    }
  }

  private async bulk(name: string, operations: estypes.BulkRequest['operations']): Promise<void> {
    const response = await this.call(name, () =>
      this.client.bulk({ refresh: this.options.refresh ?? 'wait_for', require_alias: false, operations }),
    );
    if (response.errors) {
      const failed = response.items.map((item) => Object.values(item)[0]!).find((result) => result.error);
      const error = bulkItemError({ status: failed?.status ?? 0, error: failed?.error ?? {} }, name);
      throw (error as KmError).code === 'index_not_found' ? collectionNotFound(name, error) : error;
    }
  }

  /** Runs a search on the index (none on a missing one); hits without `_source` are dropped. */
  private async hits(
    name: string,
    signal: AbortSignal | undefined,
    request: estypes.SearchRequest,
  ): Promise<Array<estypes.SearchHit<Source>>> {
    const search = { index: this.indexName(name), ignore_unavailable: true, allow_no_indices: true, track_total_hits: false, ...request };
    const response = await this.call(name, () => this.client.search<Source>(search, signal ? { signal } : {}));
    return response.hits.hits.filter((hit) => hit._source);
  }

  private translate(error: unknown, name: string): unknown {
    return isMissingIndex(error) ? collectionNotFound(name, error) : translateElasticsearchError(error, name);
  }

  /** Calls the client, turning its errors into km errors (a missing index is `collection_not_found`). */
  private async call<T>(name: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.translate(error, name);
    }
  }
}

/** Elasticsearch's reason for a refusal, with its cause. */
function reasonOf(error: unknown): string {
  const body = (error as { meta?: { body?: { error?: { reason?: unknown; caused_by?: { reason?: unknown } } } } }).meta?.body?.error;
  const parts = [body?.reason, body?.caused_by?.reason].filter((p): p is string => typeof p === 'string');
  return parts.length > 0 ? parts.join(': ') : String((error as Error).message ?? error);
}

function collectionNotFound(collection: string, cause?: unknown): KmError {
  return new KmError('collection_not_found', `collection "${collection}" does not exist`, { connector: CONNECTOR, cause });
}
