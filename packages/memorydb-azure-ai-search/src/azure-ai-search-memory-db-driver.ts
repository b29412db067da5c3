import { SearchClient, SearchIndexClient, type SearchIndex, type SearchOptions } from '@azure/search-documents';
import { InvalidInputError, KmError, type MemoryRecord } from '@km/core';
import { compareRecordIds, indexNameLimit, indexNamesUnderPrefix } from '@km/core/connector';
import type { CheckedRecord, DriverLexicalSearch, DriverList, DriverSearch, MemoryDbDriver } from '@km/core/connector';
import { clientOptions, credentialOf, type AzureAiSearchMemoryDbOptions } from './azure-ai-search-config.js';
import { indexingError, statusOf, translateAzureSearchError } from './azure-ai-search-errors.js';
import { documentKeyOf, MAX_RECORD_ID_UNITS } from './document-key.js';
import { indexDefinition, vectorSizeOfDefinition } from './index-definition.js';
import { azureIndexName, checkIndexPrefix, MAX_AZURE_INDEX_NAME_LENGTH } from './index-names.js';
import { lexicalScore, simpleQueryText } from './lexical-search.js';
import { odataString, toODataFilter } from './odata-filters.js';
import { relevanceFromScore } from './relevance.js';
import { selectFields, toDocument, toRecord, type SearchDocument } from './search-documents.js';

const CONNECTOR = 'azureaisearch';
/** The service's largest page of results (`top`) and indexing batch. */
const MAX_PAGE = 1000;
/** The service's smallest `dimensions` of a vector field. */
const MIN_VECTOR_SIZE = 2;
/** Reads of the index after a failed create, and the pause before each (the winner's index may not be visible at once). */
const RACE_READS = 3;
const RACE_READ_DELAY_MS = 200;

/**
 * The Azure AI Search driver of {@link AzureAiSearchMemoryDb}: one search index per km index
 * (`{prefix}{name}`, see `indexDefinition`). Similarity search is a vector query on `embedding`
 * (HNSW, cosine) with the km filters as an OData pre-filter, relevance converted back from the
 * service's `1 / (2 - cos)` score to the cosine. Lexical search is a full-text search on
 * `content` (BM25), which declares the `lexicalSearch` capability, so core's `hybrid` mode fuses
 * both. Listing pages through the key in order (keys sort as km ids do).
 */
export class AzureAiSearchMemoryDbDriver implements MemoryDbDriver {
  readonly name = CONNECTOR;
  /** Cosine has no value for a zero vector: they are refused rather than scored arbitrarily. */
  readonly capabilities = { zeroVectors: false };
  readonly indexNameLimit: { bytes: number; reason: string };
  /** The largest `vectorSearchDimensions` of a `Collection(Edm.Single)` field. */
  readonly maxVectorSize = 4096;
  readonly maxBatchSize: number;
  private readonly options: AzureAiSearchMemoryDbOptions;
  private readonly indexClient: SearchIndexClient;
  private readonly prefix: string;
  private readonly searchClients = new Map<string, SearchClient<SearchDocument>>();

  constructor(options: AzureAiSearchMemoryDbOptions) {
    if (typeof options?.endpoint !== 'string' || !/^https?:\/\//.test(options.endpoint)) {
      throw new InvalidInputError('invalid_argument', 'give AzureAiSearchMemoryDb the endpoint of the service (https://...)', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.prefix = checkIndexPrefix(options.indexPrefix ?? 'km-');
    this.indexNameLimit = indexNameLimit('Azure AI Search index names', MAX_AZURE_INDEX_NAME_LENGTH, this.prefix);
    this.maxBatchSize = Math.min(MAX_PAGE, Math.max(1, Math.floor(options.batchSize ?? 100)));
    this.indexClient = new SearchIndexClient(options.endpoint, credentialOf(options), clientOptions(options));
  }

  async vectorSize(index: string): Promise<number | undefined> {
    const name = this.indexName(index);
    let definition: SearchIndex;
    try {
      definition = await this.indexClient.getIndex(name);
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw translateAzureSearchError(error, index);
    }
    const size = vectorSizeOfDefinition(definition);
    if (size === undefined) {
      throw new KmError('invalid_argument', `Azure AI Search index "${name}" is not a km index (no embedding vector field)`, {
        connector: CONNECTOR,
      });
    }
    return size;
  }

  /**
   * Creates the index; when that fails, reads the index a few times ({@link RACE_READS}, 200 ms
   * apart: a concurrent creator's index may not be visible at once) and checks its vector size
   * instead, or throws the create's error when none appears. Vectors of fewer than 2 dimensions
   * (the service's minimum) are refused before anything is sent.
   */
  async createIndex(index: string, vectorSize: number): Promise<void> {
    if (vectorSize < MIN_VECTOR_SIZE) {
      throw new InvalidInputError(
        'invalid_argument',
        `Azure AI Search vector fields have at least ${MIN_VECTOR_SIZE} dimensions, got ${vectorSize}`,
        { connector: CONNECTOR },
      );
    }
    const name = this.indexName(index);
    try {
      await this.indexClient.createIndex(indexDefinition(name, vectorSize, this.options.hnsw));
    } catch (error) {
      const existing = await this.indexMadeByAnother(index);
      if (existing === undefined) throw translateAzureSearchError(error, index);
      if (existing !== vectorSize) {
        throw new KmError('vector_size_mismatch', `index "${index}" has vector size ${existing}, got ${vectorSize}`, {
          connector: CONNECTOR,
        });
      }
    }
  }

  /** The vector size of an index another creator made, read up to {@link RACE_READS} times; undefined when it never appears. */
  private async indexMadeByAnother(index: string): Promise<number | undefined> {
    for (let read = 0; read < RACE_READS; read++) {
      if (read > 0) await new Promise((resolve) => setTimeout(resolve, RACE_READ_DELAY_MS));
      const size = await this.vectorSize(index).catch(() => undefined);
      if (size !== undefined) return size;
    }
    return undefined;
  }

  async listIndexes(): Promise<string[]> {
    const names: string[] = [];
    try {
      for await (const name of this.indexClient.listIndexesNames()) names.push(name);
    } catch (error) {
      throw translateAzureSearchError(error, '');
    }
    return indexNamesUnderPrefix(names, this.prefix);
  }

  async deleteIndex(index: string): Promise<void> {
    const name = this.indexName(index);
    try {
      await this.indexClient.deleteIndex(name); // the SDK takes 404 as done
    } catch (error) {
      throw translateAzureSearchError(error, index);
    } finally {
      this.searchClients.delete(name);
    }
  }

  /** One `upload` batch (insert or replace each document); every document's result is checked. */
  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    const tooLong = records.find((r) => documentKeyOf(r.id) === undefined);
    if (tooLong) {
      throw new InvalidInputError(
        'invalid_argument',
        `record id "${tooLong.id.slice(0, 40)}..." is ${tooLong.id.length} UTF-16 code units; Azure AI Search keys hold ids of at most ${MAX_RECORD_ID_UNITS}`,
        { connector: CONNECTOR },
      );
    }
    const result = await this.call(index, () => this.searchClient(index).uploadDocuments(records.map(toDocument)));
    const failed = result.results.find((r) => !r.succeeded);
    if (failed) throw indexingError(failed, index);
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const filter = toODataFilter(query.filters);
    const hits = await this.hits(index, undefined, query.signal, {
      vectorSearchOptions: {
        queries: [{ kind: 'vector', vector: Array.from(query.vector!), kNearestNeighborsCount: query.limit, fields: ['embedding'] }],
        filterMode: 'preFilter',
      },
      ...(filter ? { filter } : {}),
      top: query.limit,
      select: selectFields(query.withEmbeddings),
    });
    const results = hits.map(({ document, score }): [MemoryRecord, number] => [toRecord(document), relevanceFromScore(score)]);
    return results.filter(([, relevance]) => relevance >= query.minRelevance);
  }

  /**
   * A full-text search of `content` (simple syntax, its special characters escaped, any word may
   * match, BM25 statistics of the whole index), best first then id order, scores mapped to
   * [0, 1) by {@link lexicalScore}.
   */
  async lexicalSearch(index: string, query: DriverLexicalSearch): Promise<Array<[MemoryRecord, number]>> {
    const text = simpleQueryText(query.text);
    if (text === undefined) return [];
    const filter = toODataFilter(query.filters);
    const hits = await this.hits(index, text, query.signal, {
      searchFields: ['content'],
      queryType: 'simple',
      searchMode: 'any',
      // Document frequencies of the whole index, not of each shard: BM25 then ranks small indexes as it should.
      scoringStatistics: 'global',
      ...(filter ? { filter } : {}),
      orderBy: ['search.score() desc', 'id asc'],
      top: query.limit,
      select: selectFields(query.withEmbeddings),
    });
    return hits.map(({ document, score }) => [toRecord(document), lexicalScore(score)]);
  }

  /** Pages of up to 1000 in key order (which is km's id order), each after the last key seen. */
  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const filter = toODataFilter(query.filters);
    const limit = query.limit ?? Infinity;
    let after: string | undefined;
    for (let returned = 0; returned < limit; ) {
      const top = Math.min(MAX_PAGE, limit - returned);
      const page = [filter && after ? `(${filter})` : filter, after ? `id gt ${odataString(after)}` : undefined];
      const conditions = page.filter((c): c is string => c !== undefined);
      const hits = await this.hits(index, '*', query.signal, {
        ...(conditions.length > 0 ? { filter: conditions.join(' and ') } : {}),
        orderBy: ['id asc'],
        top,
        select: selectFields(query.withEmbeddings),
      });
      // Keys sort as ids do; sorting the page again costs little and keeps km's order whatever the service did.
      const records = hits.map(({ document }) => toRecord(document)).sort((a, b) => compareRecordIds(a.id, b.id));
      for (const record of records) yield record;
      returned += hits.length;
      if (hits.length < top) return;
      after = String(hits.at(-1)!.document.id);
    }
  }

  async delete(index: string, id: string): Promise<void> {
    const key = documentKeyOf(id);
    if (key === undefined) return; // no record can have it
    const result = await this.call(index, () => this.searchClient(index).deleteDocuments('id', [key]));
    const failed = result.results.find((r) => !r.succeeded);
    if (failed) throw indexingError(failed, index);
  }

  /** The Azure AI Search index of a normalised km index name. */
  indexName(index: string): string {
    return azureIndexName(this.prefix, index);
  }

  private searchClient(index: string): SearchClient<SearchDocument> {
    const name = this.indexName(index);
    let client = this.searchClients.get(name);
    if (!client) {
      client = new SearchClient<SearchDocument>(this.options.endpoint, name, credentialOf(this.options), clientOptions(this.options));
      this.searchClients.set(name, client);
    }
    return client;
  }

  /** Runs a search and reads every result (the SDK fetches further pages when the service splits them). */
  private async hits(
    index: string,
    text: string | undefined,
    signal: AbortSignal | undefined,
    options: SearchOptions<SearchDocument>,
  ): Promise<Array<{ document: Partial<SearchDocument>; score: number }>> {
    return this.call(index, async () => {
      const response = await this.searchClient(index).search(text, { ...options, ...(signal ? { abortSignal: signal } : {}) });
      const hits: Array<{ document: Partial<SearchDocument>; score: number }> = [];
      for await (const result of response.results) hits.push({ document: result.document as Partial<SearchDocument>, score: result.score });
      return hits;
    });
  }

  /** Calls the SDK, turning its errors into km errors (a missing index is IndexNotFoundError). */
  private async call<T>(index: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw translateAzureSearchError(error, index);
    }
  }
}
