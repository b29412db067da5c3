import { Client, type estypes } from '@elastic/elasticsearch';
import { InvalidInputError, KmError, type KeyValue, type RecordDefinition } from '@km/core';
import {
  compareRecordIds,
  type DriverLexicalQuery,
  type DriverRecordQuery,
  type DriverVectorQuery,
  type StorageRecord,
  type VectorStoreDriver,
} from '@km/core/connector';
import { clientOptions } from '../elasticsearch-config.js';
import { bulkItemError, errorType, isMissingIndex, statusOf, translateElasticsearchError } from '../elasticsearch-errors.js';
import { checkIndexPrefix, elasticsearchIndexName, MAX_ELASTICSEARCH_INDEX_BYTES } from '../index-names.js';
import {
  documentIdOfKey,
  fromElasticsearchDocument,
  toElasticsearchDocument,
  vectorSourceExcludes,
} from './elasticsearch-vector-documents.js';
import { collectionOfIndex, indexOfCollection } from './elasticsearch-vector-index-names.js';
import { lexicalScore, lexicalSearchRequest } from './elasticsearch-vector-lexical.js';
import { checkExistingMapping, indexSettings, mappedField, vectorIndexMappings } from './elasticsearch-vector-mapping.js';
import { knnSearchRequest, QUERY_PAGE, recordQueryRequest } from './elasticsearch-vector-requests.js';
import { scoreFromElasticsearch } from './elasticsearch-vector-scores.js';
import type { ElasticsearchFieldStorage, ElasticsearchVectorStoreDriverOptions } from './elasticsearch-vector-store-options.js';

const CONNECTOR = 'elasticsearch';

type Source = Record<string, unknown>;

/**
 * Characters whose order differs between UTF-8 bytes (Elasticsearch's keyword sort) and UTF-16
 * code units (km's, `compareRecordIds`): U+E000–U+FFFF sort before characters outside the BMP
 * by bytes, after them by code units (whose surrogates are U+D800–U+DFFF).
 */
const ORDER_SENSITIVE = /[\uD800-\uFFFF]/;

/**
 * The Elasticsearch 8 driver of {@link ElasticsearchVectorStore}: one index per km collection
 * (`{prefix}{name}`, upper-case letters encoded, see {@link indexOfCollection}) with a strict
 * mapping made from the definition (see {@link vectorIndexMappings}), a document per record whose
 * `_id` is the key's string form, writes through the bulk API (`refresh=wait_for` by default),
 * kNN searches with the filter inside `knn.filter` (applied during the graph search, not after),
 * and `_score`s converted back to km's convention (see {@link scoreFromElasticsearch}). Lexical
 * search is a BM25 `match` query on a `fullText` property (see {@link lexicalSearchRequest});
 * `vectorDimensions` reads a vector's size from the index mapping. A read by filter ordered by a
 * string key alone comes in km's order (UTF-16 code units, `compareRecordIds`), not
 * Elasticsearch's (UTF-8 bytes). `storage` (see {@link ElasticsearchFieldStorage}) keeps fields
 * as indexes written before hold them: how `ElasticsearchMemoryDb` opens KM's memory indexes.
 */
export class ElasticsearchVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly collectionNameLimit: { bytes: number; reason: string };
  /** dense_vector's largest indexed size in Elasticsearch 8.11+. */
  readonly maxDimensions = 4096;
  readonly maxBatchSize: number;
  private readonly options: ElasticsearchVectorStoreDriverOptions;
  private readonly storage: ElasticsearchFieldStorage;
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(options: ElasticsearchVectorStoreDriverOptions) {
    if (!options.client && !options.node && !options.cloudId) {
      throw new InvalidInputError('invalid_argument', 'give ElasticsearchVectorStore a client, a node URL or a cloudId', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.storage = options.storage ?? {};
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
    const nameOf = (index: string): string | undefined =>
      this.storage.plainIndexNames
        ? index.startsWith(this.prefix) && index.length > this.prefix.length
          ? index.slice(this.prefix.length)
          : undefined
        : collectionOfIndex(this.prefix, index);
    const names = rows.map((r) => nameOf(r.index ?? '')).filter((n): n is string => n !== undefined);
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
        mappings: vectorIndexMappings(definition, this.options.hnsw, this.storage),
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
        { index: { _index: index, _id: documentIdOfKey(r[key] as KeyValue, this.storage) } },
        toElasticsearchDocument(definition, r, this.storage),
      ]),
    );
  }

  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    if (keys.length === 0) return [];
    const excludes = vectorSourceExcludes(definition, includeVectors, this.storage);
    let response: estypes.MgetResponse<Source>;
    try {
      response = await this.client.mget<Source>({
        index: this.indexName(name),
        ids: keys.map((k) => documentIdOfKey(k, this.storage)),
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
      if (doc.found && doc._source) records.push(fromElasticsearchDocument(definition, doc._id, doc._source, includeVectors, this.storage));
    }
    return records;
  }

  /**
   * Bulk `delete` actions, with no existence check first: Elasticsearch creates no index for a
   * delete, and answers each action on a missing one with `index_not_found_exception`, which
   * {@link bulk} turns into `collection_not_found`. Only an empty key list asks whether the
   * index exists (there is no action to answer).
   */
  async delete(name: string, _definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    if (keys.length === 0) {
      await this.existingIndex(name);
      return;
    }
    const index = this.indexName(name);
    await this.bulk(
      name,
      keys.map((k) => ({ delete: { _index: index, _id: documentIdOfKey(k, this.storage) } })),
    );
  }

  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    const hits = await this.hits(name, query.signal, knnSearchRequest(definition, query, this.options.numCandidates, this.storage));
    const { distance } = query.vectorProperty;
    return hits.map((hit): [StorageRecord, number] => [
      fromElasticsearchDocument(definition, hit._id, hit._source!, query.includeVectors, this.storage),
      scoreFromElasticsearch(distance, hit._score ?? 0),
    ]);
  }

  /** A BM25 `match` query on the property (see {@link lexicalSearchRequest}), scores mapped to [0, 1) by {@link lexicalScore}. */
  async lexicalSearch(name: string, definition: RecordDefinition, query: DriverLexicalQuery): Promise<Array<[StorageRecord, number]>> {
    const hits = await this.hits(name, query.signal, lexicalSearchRequest(definition, query, this.storage));
    return hits.map((hit): [StorageRecord, number] => [
      fromElasticsearchDocument(definition, hit._id, hit._source!, query.includeVectors, this.storage),
      lexicalScore(hit._score ?? 0),
    ]);
  }

  /**
   * The size of the vector stored under `storageName`: its `dense_vector` `dims` in the index
   * mapping; undefined when the index or the field does not exist, `invalid_argument` when the
   * field is no `dense_vector` of known size.
   */
  async vectorDimensions(name: string, storageName: string): Promise<number | undefined> {
    const mapping = await this.mappingOf(name);
    const field = mapping && (mappedField(mapping, storageName) as { type?: string; dims?: unknown } | undefined);
    if (!field) return undefined;
    if (field.type !== 'dense_vector' || typeof field.dims !== 'number') {
      throw new InvalidInputError(
        'invalid_argument',
        `Elasticsearch index "${this.indexName(name)}" maps "${storageName}" as ${field.type ?? 'an object'}, not a dense_vector of known size`,
        { connector: CONNECTOR },
      );
    }
    return field.dims;
  }

  /** Every page of {@link queryPages}, collected. */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    const records: StorageRecord[] = [];
    for await (const page of this.queryPages(name, definition, query)) records.push(...page);
    return records;
  }

  /**
   * Records matching the filter, sorted by the fields asked for (missing values last), then by
   * the key, read a page of {@link QUERY_PAGE} at a time with `search_after` and yielded page by
   * page. Ordered by a string key alone (how `MemoryDb` lists), they come in UTF-16 code-unit
   * order (`compareRecordIds`), where Elasticsearch sorts keywords by UTF-8 bytes: the two orders
   * differ only between characters from U+E000 up and characters outside the BMP, so a key
   * holding neither sits at the same place in both orders. Such keys pass through as read; a run
   * of consecutive keys that hold one is held until the next key that holds none (or the end)
   * and sorted here, and a limited read that ends inside such a run reads on to its end. Only
   * those runs are held, whole hits up to a page of them; a longer run (a listing whose keys all
   * hold such characters is one) holds its keys only, then reads its records again by key
   * (`mget`, a page at a time) once sorted. Other string sorts keep Elasticsearch's byte order.
   */
  async *queryPages(name: string, definition: RecordDefinition, query: DriverRecordQuery): AsyncGenerator<StorageRecord[]> {
    const request = recordQueryRequest(definition, query, this.storage);
    const key = definition.key.storageName;
    const limit = Math.max(0, query.limit);
    const records = (hits: Array<estypes.SearchHit<Source>>) =>
      hits.map((hit) => fromElasticsearchDocument(definition, hit._id, hit._source!, query.includeVectors, this.storage));
    if (definition.key.type === 'integer' || !query.orderBy.every((o) => o.storageName === key)) {
      let after: estypes.SortResults | undefined;
      for (let read = 0; read < limit; ) {
        const size = Math.min(QUERY_PAGE, limit - read);
        const page = await this.rawSearch(name, query.signal, { ...request, size, ...(after ? { search_after: after } : {}) });
        const found = page.filter((hit) => hit._source);
        if (found.length > 0) yield records(found);
        read += page.length;
        if (page.length < size) return;
        after = page[page.length - 1]!.sort;
      }
      return;
    }
    const keyOf = (hit: estypes.SearchHit<Source>) => String(hit._source?.[key] ?? hit._id);
    const sign = query.orderBy[0]?.descending ? -1 : 1;
    let left = limit;
    /**
     * Consecutive hits (in Elasticsearch's order) whose keys hold order-sensitive characters; past
     * {@link QUERY_PAGE} of them only their keys are held (`slim`), the records read again by key
     * (`mget`, a page at a time) once the run is sorted.
     */
    let run: Array<{ key: string; hit: estypes.SearchHit<Source> | undefined }> = [];
    let slim = false;
    const hold = (hit: estypes.SearchHit<Source>) => {
      run.push({ key: keyOf(hit), hit: slim ? undefined : hit });
      if (!slim && run.length > QUERY_PAGE) {
        slim = true;
        for (const held of run) held.hit = undefined;
      }
    };
    const byKey = (keys: string[]) => this.get(name, definition, keys, query.includeVectors);
    /** Adds the run, sorted and cut to what is left, to `out`; a slim run yields `out`, then its records a page at a time. */
    async function* flushRun(out: StorageRecord[]): AsyncGenerator<StorageRecord[]> {
      const sorted = run.sort((a, b) => sign * compareRecordIds(a.key, b.key)).slice(0, left);
      const readAgain = slim;
      left -= sorted.length;
      run = [];
      slim = false;
      if (!readAgain) {
        out.push(...records(sorted.map((held) => held.hit!)));
        return;
      }
      if (out.length > 0) yield out.splice(0);
      for (let start = 0; start < sorted.length; start += QUERY_PAGE) {
        // Deleted since they were listed: left out.
        const found = await byKey(sorted.slice(start, start + QUERY_PAGE).map((held) => held.key));
        if (found.length > 0) yield found;
      }
    }
    // The first pass reads the first `limit` hits, as km has always asked. When it stops inside a
    // run, a second pass reads the hits again from the start (pages of QUERY_PAGE), passes over
    // those already dealt with, and reads on until the run ends.
    let passed = 0; // hits of Elasticsearch's order before the open run: yielded, or without _source
    for (const bound of [limit, Number.POSITIVE_INFINITY]) {
      run = [];
      slim = false;
      let after: estypes.SortResults | undefined;
      for (let read = 0; left > 0 && read < bound; ) {
        const size = Math.min(QUERY_PAGE, bound - read);
        const page = await this.rawSearch(name, query.signal, { ...request, size, ...(after ? { search_after: after } : {}) });
        const out: StorageRecord[] = [];
        for (const [i, hit] of page.entries()) {
          if (left === 0) break;
          const at = read + i;
          if (at < passed) continue;
          if (!hit._source) {
            if (run.length === 0) passed = at + 1;
            continue;
          }
          if (ORDER_SENSITIVE.test(keyOf(hit))) {
            hold(hit);
            continue;
          }
          yield* flushRun(out);
          if (left > 0) {
            out.push(...records([hit]));
            left--;
          }
          passed = at + 1;
        }
        read += page.length;
        const ended = page.length < size;
        if (ended) yield* flushRun(out); // the last run is complete
        if (out.length > 0) yield out;
        if (ended) return;
        after = page[page.length - 1]!.sort;
      }
      if (run.length === 0 || left === 0) return;
    }
  }

  /** Closes the client the connector built (a client given in is left open). */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** The Elasticsearch index of a km collection name. */
  indexName(name: string): string {
    return this.storage.plainIndexNames ? elasticsearchIndexName(this.prefix, name) : indexOfCollection(this.prefix, name);
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
    return (await this.rawSearch(name, signal, request)).filter((hit) => hit._source);
  }

  /** Runs a search on the index (none on a missing one). */
  private async rawSearch(
    name: string,
    signal: AbortSignal | undefined,
    request: estypes.SearchRequest,
  ): Promise<Array<estypes.SearchHit<Source>>> {
    const search = { index: this.indexName(name), ignore_unavailable: true, allow_no_indices: true, track_total_hits: false, ...request };
    const response = await this.call(name, () => this.client.search<Source>(search, signal ? { signal } : {}));
    return response.hits.hits;
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
