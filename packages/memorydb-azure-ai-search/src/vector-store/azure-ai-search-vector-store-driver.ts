import { SearchClient, SearchIndexClient, type SearchOptions } from '@azure/search-documents';
import { InvalidInputError, isKmError, KmError, type KeyValue, type RecordDefinition } from '@km/core';
import {
  type DriverLexicalQuery,
  type DriverRecordQuery,
  type DriverVectorQuery,
  recordOrder,
  type StorageRecord,
  type VectorStoreDriver,
  collectionNamesUnderPrefix,
} from '@km/core/connector';
import { clientOptions, credentialOf } from '../azure-ai-search-config.js';
import { indexingError, statusOf, translateAzureSearchError } from '../azure-ai-search-errors.js';
import { azureIndexName, checkIndexPrefix, MAX_AZURE_INDEX_NAME_LENGTH } from '../index-names.js';
import { lexicalScore, simpleQueryText } from '../lexical-search.js';
import { odataString, searchInDelimiter } from '../odata-literals.js';
import type { AzureAiSearchVectorStoreOptions } from './azure-ai-search-vector-store-options.js';
import type { AzureIndexLayout } from './azure-index-layout.js';
import { type AzureVectorDocument, checkFieldNames, documentKeyFor, fromAzureDocument, toAzureDocument } from './azure-vector-documents.js';
import { MATCH_NOTHING, toODataVectorFilter } from './azure-vector-filter.js';
import { checkDimensions, checkVectorIndex, MAX_DIMENSIONS, vectorDimensionsOf, vectorIndexDefinition } from './azure-vector-index.js';
import { scoreOfHit } from './azure-vector-scores.js';

const CONNECTOR = 'azureaisearch';
/** The service's largest page of results (`top`) and indexing batch. */
const MAX_PAGE = 1000;
/** Reads of the index after a failed create (`createFirst`), and the pause before each (the winner's index may not be visible at once). */
const RACE_READS = 3;
const RACE_READ_DELAY_MS = 200;

/**
 * The Azure AI Search driver of {@link AzureAiSearchVectorStore}: one index per collection
 * (`{prefix}{name}`, see `vectorIndexDefinition`), a document per record (key encoded by
 * `documentKeyFor`). A search is a vector query with the filter (`toODataVectorFilter`) as a
 * pre-filter; scores are converted to km's conventions (`scoreOfHit`). Reads by key are a
 * filtered search on the key (`search.in`). Writes and deletes on a missing index throw
 * `collection_not_found`. The service makes writes searchable within about a second. Lexical
 * search is a full-text search (BM25) of a `fullText` property; `vectorDimensions` reads a
 * vector field's size from the index definition. The options' `layout` keeps km 0.x's memory
 * indexes as they were (see `AzureIndexLayout`).
 */
export class AzureAiSearchVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly maxDimensions = MAX_DIMENSIONS;
  readonly maxBatchSize: number;
  readonly collectionNameLimit: { bytes: number; reason: string };
  readonly collectionPrefix: string;
  private readonly options: AzureAiSearchVectorStoreOptions;
  private readonly layout: AzureIndexLayout;
  private readonly indexClient: SearchIndexClient;
  private readonly searchClients = new Map<string, SearchClient<AzureVectorDocument>>();

  constructor(options: AzureAiSearchVectorStoreOptions) {
    if (typeof options?.endpoint !== 'string' || !/^https?:\/\//.test(options.endpoint)) {
      throw new InvalidInputError('invalid_argument', 'give AzureAiSearchVectorStore the endpoint of the service (https://...)', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.layout = options.layout ?? {};
    this.collectionPrefix = checkIndexPrefix(options.collectionPrefix ?? 'kmvs-');
    this.collectionNameLimit = {
      bytes: MAX_AZURE_INDEX_NAME_LENGTH - this.collectionPrefix.length,
      reason: `Azure AI Search index names hold ${MAX_AZURE_INDEX_NAME_LENGTH} characters, the prefix "${this.collectionPrefix}" included`,
    };
    this.maxBatchSize = Math.min(MAX_PAGE, Math.max(1, Math.floor(options.batchSize ?? 100)));
    this.indexClient = new SearchIndexClient(options.endpoint, credentialOf(options), clientOptions(options));
  }

  async listCollections(): Promise<string[]> {
    const names: string[] = [];
    try {
      for await (const name of this.indexClient.listIndexesNames()) names.push(name);
    } catch (error) {
      throw translateAzureSearchError(error, '');
    }
    // Azure index names are lower case, so every collection listed is too.
    return collectionNamesUnderPrefix(names, this.collectionPrefix);
  }

  async collectionExists(name: string): Promise<boolean> {
    return (await this.readIndex(name)) !== undefined;
  }

  /**
   * Creates the index; when it exists (made earlier, by a concurrent caller, or by you), checks
   * it fits the definition (`checkVectorIndex`) instead.
   */
  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    checkFieldNames(definition);
    checkDimensions(definition);
    const indexName = this.indexName(name);
    const existing = this.layout.createFirst ? undefined : await this.readIndex(name);
    if (!existing) {
      try {
        await this.indexClient.createIndex(vectorIndexDefinition(indexName, definition, this.options.hnsw, this.layout));
        return;
      } catch (error) {
        const winner = await this.indexMadeByAnother(name);
        if (!winner) throw translateAzureSearchError(error, name);
        checkVectorIndex(winner, definition);
        return;
      }
    }
    checkVectorIndex(existing, definition);
  }

  /** The index another creator made, read once (or up to {@link RACE_READS} times, 200 ms apart, with `createFirst`); undefined when none appears. */
  private async indexMadeByAnother(name: string) {
    const reads = this.layout.createFirst ? RACE_READS : 1;
    for (let read = 0; read < reads; read++) {
      if (read > 0) await new Promise((resolve) => setTimeout(resolve, RACE_READ_DELAY_MS));
      const index = await this.readIndex(name).catch(() => undefined);
      if (index) return index;
    }
    return undefined;
  }

  /** The dimensions of a vector field, read from the index definition; undefined when the index or the field is missing. */
  async vectorDimensions(name: string, storageName: string): Promise<number | undefined> {
    const index = await this.readIndex(name);
    return index ? vectorDimensionsOf(index, storageName) : undefined;
  }

  async deleteCollection(name: string): Promise<void> {
    const indexName = this.indexName(name);
    try {
      await this.indexClient.deleteIndex(indexName); // the SDK takes 404 as done
    } catch (error) {
      if (statusOf(error) !== 404) throw translateAzureSearchError(error, name);
    } finally {
      this.searchClients.delete(indexName);
    }
  }

  /** One `upload` batch (insert or replace each document); every document's result is checked. */
  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void> {
    checkFieldNames(definition);
    const documents = records.map((r) => toAzureDocument(definition, r, this.layout.keyTextField));
    const result = await this.write(name, () => this.searchClient(name).uploadDocuments(documents));
    const failed = result.results.find((r) => !r.succeeded);
    if (failed) throw indexingError(failed, name);
  }

  /** A filtered search on the key (`search.in`), at most 1000 keys a request. */
  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    checkFieldNames(definition);
    const records: StorageRecord[] = [];
    for (let start = 0; start < keys.length; start += MAX_PAGE) {
      const page = storableKeys(definition, keys.slice(start, start + MAX_PAGE));
      if (page.length === 0) continue;
      const documents = await this.read(name, '*', {
        filter: keyFilter(definition.key.storageName, page),
        top: page.length,
        select: this.selectOf(definition, includeVectors),
      });
      if (documents === undefined) return [];
      records.push(...documents.map(({ document }) => fromAzureDocument(definition, document, includeVectors)));
    }
    return records;
  }

  async delete(name: string, definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    if (keys.length === 0) {
      if (!(await this.collectionExists(name))) throw this.notFound(name);
      return;
    }
    const documentKeys = storableKeys(definition, keys);
    if (documentKeys.length === 0) {
      if (!(await this.collectionExists(name))) throw this.notFound(name);
      return;
    }
    const result = await this.write(name, () => this.searchClient(name).deleteDocuments(definition.key.storageName, documentKeys));
    const failed = result.results.find((r) => !r.succeeded);
    if (failed) throw indexingError(failed, name);
  }

  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    checkFieldNames(definition);
    const filter = toODataVectorFilter(query.filter);
    // The whole limit in one request (as km 0.x asked); the SDK reads on through the pages the service returns.
    const limit = query.limit;
    if (filter === MATCH_NOTHING || limit <= 0) return [];
    const vector = query.vectorProperty;
    // Dot and Euclidean hits are scored from their vector, so it is read back.
    const withVector = query.includeVectors || vector.distance !== 'cosine';
    const select = [
      ...this.selectOf(definition, query.includeVectors),
      ...(withVector && !query.includeVectors ? [vector.storageName] : []),
    ];
    const hits = await this.read(
      name,
      undefined,
      {
        vectorSearchOptions: {
          queries: [{ kind: 'vector', vector: Array.from(query.vector), kNearestNeighborsCount: limit, fields: [vector.storageName] }],
          filterMode: 'preFilter',
        },
        ...(filter !== undefined ? { filter } : {}),
        top: limit,
        select,
      },
      query.signal,
    );
    return (hits ?? []).map(({ document, score }): [StorageRecord, number] => [
      fromAzureDocument(definition, document, query.includeVectors),
      scoreOfHit(vector.distance, score, query.vector, document[vector.storageName] as number[] | undefined),
    ]);
  }

  /** Every page of {@link queryPages}, collected. */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    const records: StorageRecord[] = [];
    for await (const page of this.queryPages(name, definition, query)) records.push(...page);
    return records;
  }

  /**
   * Records matching the filter in the given order, a page at a time. By string key ascending (how
   * the memory DB lists): pages of up to 1000 ordered by the key, each after the last key seen
   * (`key gt 'last'`), each yielded when read. Any other order: the keys and order fields of
   * every match are read in pages of 1000 through the key (the key field must be sortable, as in
   * the indexes this store creates) and sorted here (`recordOrder`: missing values last, ties by
   * key), then the first `limit` records are read by key and yielded 1000 at a time; that order
   * holds every match's key and order fields at once, and its cost grows with the number of
   * matching records, not with `limit`.
   */
  async *queryPages(name: string, definition: RecordDefinition, query: DriverRecordQuery): AsyncGenerator<StorageRecord[]> {
    checkFieldNames(definition);
    const filter = toODataVectorFilter(query.filter);
    if (filter === MATCH_NOTHING || query.limit <= 0) return;
    const keyField = definition.key.storageName;
    if (definition.key.type === 'string' && query.orderBy.every((o) => o.storageName === keyField && !o.descending)) {
      yield* this.inKeyOrder(name, definition, filter, query.limit, query.includeVectors, query.signal);
      return;
    }
    const sortFields = new Set(query.orderBy.map((o) => o.storageName).filter((f) => f !== keyField));
    const partial = { ...definition, data: definition.data.filter((d) => sortFields.has(d.storageName)), vectors: [] };
    const rows: StorageRecord[] = [];
    let after: string | undefined;
    for (;;) {
      const conditions = [
        filter !== undefined && after ? `(${filter})` : filter,
        after ? `${keyField} gt ${odataString(after)}` : undefined,
      ];
      const present = conditions.filter((c): c is string => c !== undefined);
      const page = await this.read(name, '*', {
        ...(present.length > 0 ? { filter: present.join(' and ') } : {}),
        orderBy: [`${keyField} asc`],
        top: MAX_PAGE,
        select: [keyField, ...sortFields],
      });
      if (page === undefined) return;
      rows.push(...page.map(({ document }) => fromAzureDocument(partial, document, false)));
      if (page.length < MAX_PAGE) break;
      after = String(page.at(-1)!.document[keyField]);
    }
    const order = recordOrder(keyField, query.orderBy);
    const wanted = rows.sort(order).slice(0, query.limit);
    for (let start = 0; start < wanted.length; start += MAX_PAGE) {
      const keys = wanted.slice(start, start + MAX_PAGE).map((r) => r[keyField] as KeyValue);
      // Deleted since they matched: left out.
      const records = await this.get(name, definition, keys, query.includeVectors);
      if (records.length > 0) yield records.sort(order);
    }
  }

  /**
   * Records matching the filter in key order, read in pages of up to 1000 ordered by the key, each
   * after the last key seen (`key gt 'last'`): document keys sort as string keys do
   * (`documentKeyOf`), so for string keys this is the order of `query` by the key, in one request
   * per page, each page yielded when read.
   */
  private async *inKeyOrder(
    name: string,
    definition: RecordDefinition,
    filter: string | undefined,
    limit: number,
    includeVectors: boolean,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StorageRecord[]> {
    const keyField = definition.key.storageName;
    let read = 0;
    let after: string | undefined;
    while (read < limit) {
      const top = Math.min(MAX_PAGE, limit - read);
      const page = [filter && after ? `(${filter})` : filter, after ? `${keyField} gt ${odataString(after)}` : undefined];
      const conditions = page.filter((c): c is string => c !== undefined);
      const hits = await this.read(
        name,
        '*',
        {
          ...(conditions.length > 0 ? { filter: conditions.join(' and ') } : {}),
          orderBy: [`${keyField} asc`],
          top,
          select: this.selectOf(definition, includeVectors),
        },
        signal,
      );
      if (hits === undefined) return;
      read += hits.length;
      if (hits.length > 0) yield hits.map(({ document }) => fromAzureDocument(definition, document, includeVectors));
      if (hits.length < top) return;
      after = String(hits.at(-1)!.document[keyField]);
    }
  }

  /**
   * A full-text search of a `fullText` property (simple syntax, its special characters escaped,
   * any word may match, BM25 statistics of the whole index), best first then key order, scores
   * mapped to [0, 1) by `lexicalScore`. A text without letters or digits finds nothing (an
   * empty search would match every document); a missing index reads as no records.
   */
  async lexicalSearch(name: string, definition: RecordDefinition, query: DriverLexicalQuery): Promise<Array<[StorageRecord, number]>> {
    checkFieldNames(definition);
    const text = simpleQueryText(query.text);
    if (text === undefined) return [];
    const filter = toODataVectorFilter(query.filter);
    if (filter === MATCH_NOTHING || query.limit <= 0) return [];
    const hits = await this.read(
      name,
      text,
      {
        searchFields: [query.property.storageName],
        queryType: 'simple',
        searchMode: 'any',
        // Document frequencies of the whole index, not of each shard: BM25 then ranks small indexes as it should.
        scoringStatistics: 'global',
        ...(filter ? { filter } : {}),
        orderBy: ['search.score() desc', `${definition.key.storageName} asc`],
        top: query.limit,
        select: this.selectOf(definition, query.includeVectors),
      },
      query.signal,
    );
    return (hits ?? []).map(({ document, score }) => [fromAzureDocument(definition, document, query.includeVectors), lexicalScore(score)]);
  }

  /** The fields a read returns: key and data (but the layout's hidden fields), and the vectors when wanted. */
  private selectOf(definition: RecordDefinition, includeVectors: boolean): string[] {
    const hidden = new Set(this.layout.hiddenFields ?? []);
    return [
      definition.key.storageName,
      ...definition.data.map((d) => d.storageName).filter((f) => !hidden.has(f)),
      ...(includeVectors ? definition.vectors.map((v) => v.storageName) : []),
    ];
  }

  /** The Azure AI Search index of a collection; collection names with upper-case letters are refused (index names are lower case). */
  indexName(name: string): string {
    try {
      return azureIndexName(this.collectionPrefix, name);
    } catch (error) {
      if (this.layout.indexNameErrors) throw error;
      throw new InvalidInputError(
        'invalid_argument',
        `collection "${name}": ${(error as Error).message.replace(/^\[km\] (\[\w+\] )?/, '')}`,
        {
          connector: CONNECTOR,
          cause: error,
        },
      );
    }
  }

  private async readIndex(name: string) {
    try {
      return await this.indexClient.getIndex(this.indexName(name));
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw translateAzureSearchError(error, name);
    }
  }

  private searchClient(name: string): SearchClient<AzureVectorDocument> {
    const indexName = this.indexName(name);
    let client = this.searchClients.get(indexName);
    if (!client) {
      client = new SearchClient<AzureVectorDocument>(
        this.options.endpoint,
        indexName,
        credentialOf(this.options),
        clientOptions(this.options),
      );
      this.searchClients.set(indexName, client);
    }
    return client;
  }

  /** Runs a search and reads every result; undefined when the index does not exist. */
  private async read(
    name: string,
    text: string | undefined,
    options: SearchOptions<AzureVectorDocument>,
    signal?: AbortSignal,
  ): Promise<Array<{ document: AzureVectorDocument; score: number }> | undefined> {
    try {
      const response = await this.searchClient(name).search(text, { ...options, ...(signal ? { abortSignal: signal } : {}) });
      const hits: Array<{ document: AzureVectorDocument; score: number }> = [];
      for await (const result of response.results) hits.push({ document: result.document, score: result.score });
      return hits;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw translateAzureSearchError(error, name);
    }
  }

  /** Runs an indexing request; a missing index is `collection_not_found`. */
  private async write<T>(name: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (statusOf(error) === 404) throw this.notFound(name, error);
      const translated = translateAzureSearchError(error, name);
      if (isKmError(translated, 'index_not_found')) throw this.notFound(name, error);
      throw translated;
    }
  }

  private notFound(name: string, cause?: unknown): KmError {
    return new KmError('collection_not_found', `collection "${name}" does not exist (no Azure AI Search index "${this.indexName(name)}")`, {
      connector: CONNECTOR,
      cause,
    });
  }
}

/** The document keys of these keys, leaving out string keys too long to be stored (no record can have them). */
function storableKeys(definition: RecordDefinition, keys: readonly KeyValue[]): string[] {
  const stored: string[] = [];
  for (const key of keys) {
    try {
      stored.push(documentKeyFor(definition.key, key));
    } catch (error) {
      if (!isKmError(error, 'invalid_argument')) throw error;
    }
  }
  return stored;
}

/** `search.in` on the key field (document keys never hold `,`), or `eq`s when no delimiter fits. */
function keyFilter(field: string, keys: string[]): string {
  const delimiter = searchInDelimiter(keys);
  if (delimiter !== undefined) return `search.in(${field}, ${odataString(keys.join(delimiter))}, ${odataString(delimiter)})`;
  return keys.map((k) => `${field} eq ${odataString(k)}`).join(' or ');
}
