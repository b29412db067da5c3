import { type Attributes, SpanKind } from '@opentelemetry/api';
import type { IMemoryDb, ListOptions, MemoryDbCapabilities, RecordTagsUpdate, SimilarityOptions } from '../contracts/memory-db.js';
import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { IndexNotFoundError, InvalidInputError, KmError, isKmError } from '../errors/km-error.js';
import { toMemoryFilters, type MemoryFilter } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { validateTags } from '../models/tag-collection.js';
import { batches } from '../util/concurrency.js';
import { memoryDbAttributes } from '../tracing/memory-db-spans.js';
import { KmAttributes } from '../tracing/span-attributes.js';
import { traceIterable, withSpan } from '../tracing/with-span.js';
import { normalizeIndexName } from '../validation/index-name.js';
import { toKmError } from '../vector-store/driver-call.js';
import { checkFusion } from './hybrid-fusion.js';
import { driverCapabilities, type DriverSearch, type MemoryDbDriver } from './memory-db-driver.js';
import { resolveQueryVector } from './query-vector.js';
import type { QueryEmbeddingCacheOptions } from '../ai/query-embedding-cache.js';
import { checkBatchForIndex, checkRecord, checkVectorRecord, type CheckedRecord } from './record-input.js';
import { rankResults } from './result-order.js';
import { searchLimit } from './search-limit.js';
import { checkModeSupported, checkSearchMode, fuseHybrid, hybridCandidates, lexicalQueryText } from './search-modes.js';
import { l2norm } from './vector-math.js';

/** Options of {@link MemoryDb}. */
export interface MemoryDbOptions {
  /** Embeds text queries given to `getSimilarList`; vector queries need none. */
  embeddingGenerator?: ITextEmbeddingGenerator | undefined;
  /** Results of a similarity search whose limit is `<= 0`. @default 100 */
  maxSearchResults?: number | undefined;
  /**
   * The cache of text-query embeddings (shared by every user of the same generator): repeated
   * queries skip the model, concurrent ones are embedded in one batch. `false` embeds every query.
   * @default { maxEntries: 1000, maxFloats: 2 ** 21 }
   */
  queryCache?: QueryEmbeddingCacheOptions | false | undefined;
}

/**
 * A memory DB: the one implementation of {@link IMemoryDb}'s rules over a connector's
 * {@link MemoryDbDriver}. It normalises and checks index names, checks and de-duplicates
 * records, caches vector sizes, embeds text queries, applies limits, `minRelevance` and ranking
 * (drivers list in id order, as `@km/conformance` checks), refuses filters the driver's capabilities cannot express (`unsupported_filter`),
 * handles missing indexes and splits or loops batches. Connector packages export a subclass
 * (`PostgresMemoryDb`, `QdrantMemoryDb`, …) that builds their driver.
 *
 * ```ts
 * const db = new MemoryDb(new MyDriver(config), { embeddingGenerator });
 * await db.createIndex('notes', 384);
 * for await (const [record, relevance] of db.getSimilarList('notes', 'moon landing', { limit: 5 })) ...
 * ```
 */
export class MemoryDb<Driver extends MemoryDbDriver = MemoryDbDriver> implements IMemoryDb {
  readonly name: string;
  readonly capabilities: Required<MemoryDbCapabilities>;
  readonly maxIndexNameLength: number | undefined;
  /** The connector's driver (for its own extra methods, and for `@km/conformance`). */
  readonly driver: Driver;
  private readonly embeddingGenerator: ITextEmbeddingGenerator | undefined;
  private readonly maxSearchResults: number;
  private readonly queryCache: QueryEmbeddingCacheOptions | false;
  /** Vector size of each index seen to exist (0 for stores without vectors). */
  private readonly sizes = new Map<string, number>();
  /** Replaces records' tags in place; present when the driver can (see {@link IMemoryDb.updateTags}). */
  readonly updateTags?: (index: string, updates: readonly RecordTagsUpdate[]) => Promise<void>;

  constructor(driver: Driver, options: MemoryDbOptions = {}) {
    if (typeof driver?.upsertBatch !== 'function' && typeof driver?.upsert !== 'function') {
      throw new InvalidInputError('invalid_argument', `the ${driver?.name ?? 'memory DB'} driver has neither upsertBatch nor upsert`);
    }
    this.driver = driver;
    this.name = driver.name;
    this.capabilities = driverCapabilities(driver);
    this.maxIndexNameLength = driver.indexNameLimit?.bytes;
    this.embeddingGenerator = options.embeddingGenerator;
    this.maxSearchResults = Math.max(1, Math.floor(options.maxSearchResults ?? 100));
    this.queryCache = options.queryCache ?? {};
    if (typeof driver.updateTags === 'function') {
      this.updateTags = (index, updates) =>
        this.traced('update_tags', index, () => this.updateTagsInPlace(index, updates), {
          [KmAttributes.records]: Array.isArray(updates) ? updates.length : 0,
        });
    }
  }

  /** Checked tag updates (the last of an id wins) to the driver, in batches; a missing index is a no-op. */
  private async updateTagsInPlace(index: string, updates: readonly RecordTagsUpdate[]): Promise<void> {
    const name = this.checkIndexName(index);
    if (!Array.isArray(updates)) throw new InvalidInputError('invalid_argument', 'updates must be a list', { connector: this.name });
    const unique = new Map<string, RecordTagsUpdate>();
    for (const update of updates) {
      if (typeof update?.id !== 'string' || update.id.length === 0) {
        throw new InvalidInputError('invalid_argument', 'each tag update needs a record id', { connector: this.name });
      }
      unique.delete(update.id);
      unique.set(update.id, { id: update.id, tags: validateTags(update.tags, true) });
    }
    if (unique.size === 0 || (await this.vectorSizeOf(name)) === undefined) return;
    const list = [...unique.values()];
    for (const batch of batches(list, this.driver.maxBatchSize ?? list.length)) {
      await this.read(name, () => this.driver.updateTags!(name, batch));
    }
  }

  createIndex(index: string, vectorSize: number): Promise<void> {
    return this.traced('create_index', index, () => this.createIndexOnce(index, vectorSize));
  }

  private async createIndexOnce(index: string, vectorSize: number): Promise<void> {
    const name = this.checkIndexName(index);
    const size = this.capabilities.vectorSearch ? this.checkIndexVectorSize(vectorSize) : 0;
    const known = await this.vectorSizeOf(name);
    if (known !== undefined) return this.checkSize(name, known, size);
    try {
      await this.driver.createIndex(name, size);
    } catch (error) {
      // A concurrent creator may have won the race: check what it made.
      const made = isKmError(error, 'vector_size_mismatch') ? undefined : await this.driver.vectorSize(name).catch(() => undefined);
      if (made === undefined) throw error;
      this.sizes.set(name, made);
      return this.checkSize(name, made, size);
    }
    this.sizes.set(name, size);
  }

  getIndexes(): Promise<string[]> {
    return this.traced('get_indexes', undefined, async () => [...new Set(await this.driver.listIndexes())].sort());
  }

  deleteIndex(index: string): Promise<void> {
    return this.traced('delete_index', index, async () => {
      const name = this.checkIndexName(index);
      this.sizes.delete(name);
      await this.driver.deleteIndex(name).catch((error: unknown) => {
        if (!(error instanceof IndexNotFoundError)) throw error;
      });
    });
  }

  upsert(index: string, record: MemoryRecord): Promise<string> {
    return this.traced('upsert', index, async () => (await this.upsertRecords(index, [record]))[0]!, { [KmAttributes.records]: 1 });
  }

  /** Writes records in one driver call where it has one (split at its `maxBatchSize`), else one by one; nothing is written when a record is invalid. */
  upsertBatch(index: string, records: MemoryRecord[]): Promise<string[]> {
    const count = Array.isArray(records) ? records.length : 0;
    return this.traced('upsert_batch', index, () => this.upsertRecords(index, records), { [KmAttributes.records]: count });
  }

  private async upsertRecords(index: string, records: MemoryRecord[]): Promise<string[]> {
    const name = this.checkIndexName(index);
    if (!Array.isArray(records)) throw new InvalidInputError('invalid_argument', 'records must be a list', { connector: this.name });
    const checked = records.map((r) => this.checkRecord(r));
    if (checked.length === 0) return [];
    let size = await this.vectorSizeOf(name);
    if (size === undefined) {
      if (!this.capabilities.createsIndexOnUpsert) throw new IndexNotFoundError(name, { connector: this.name });
      await this.createIndex(name, this.capabilities.vectorSearch ? checked[0]!.vector.length : 0);
      size = this.sizes.get(name) ?? 0;
    }
    const unique = checkBatchForIndex(checked, this.capabilities.vectorSearch ? size : undefined, name, this.name);
    try {
      await this.write(name, unique);
    } catch (error) {
      if (!(error instanceof IndexNotFoundError)) throw error;
      this.sizes.delete(name); // deleted behind our back
      if (!this.capabilities.createsIndexOnUpsert) throw error;
      await this.createIndex(name, size);
      await this.write(name, unique);
    }
    return checked.map((r) => r.id);
  }

  /**
   * Records most similar to the query. `mode` picks how (see `SimilarityOptions`): `vector`
   * (cosine), `lexical` (the driver's full-text score) or `hybrid` (both sides fetch
   * `max(limit, 50)` candidates, fused by `options.fusion`; relevance stays the cosine).
   */
  getSimilarList(
    index: string,
    query: string | Float32Array | number[],
    options: SimilarityOptions = {},
  ): AsyncIterable<[MemoryRecord, number]> {
    const attributes = memoryDbAttributes(this.name, index, {
      [KmAttributes.searchMode]: options.mode ?? 'vector',
      [KmAttributes.limit]: options.limit ?? 0,
    });
    return traceIterable(
      'km.memory_db.search',
      attributes,
      () => this.guarded('search', this.similarList(index, query, options), options.signal),
      {
        kind: SpanKind.CLIENT,
      },
    );
  }

  private async *similarList(
    index: string,
    query: string | Float32Array | number[],
    options: SimilarityOptions,
  ): AsyncIterable<[MemoryRecord, number]> {
    const mode = checkSearchMode(options.mode, this.name);
    const name = this.checkIndexName(index);
    const filters = this.checkFilters(options.filters);
    const minRelevance = options.minRelevance ?? 0;
    const limit = searchLimit(options.limit, this.maxSearchResults);
    const withEmbeddings = options.withEmbeddings ?? false;
    const search = { filters, limit, minRelevance, withEmbeddings, signal: options.signal };
    const found =
      mode === 'vector' ? await this.vectorSearch(name, query, search) : await this.wordSearch(name, query, mode, options, search);
    if (!found) return;
    const ranked = mode === 'hybrid' ? found : rankResults(found.filter(([, relevance]) => relevance >= minRelevance)).slice(0, limit);
    for (const [record, relevance] of ranked) yield [withVectorIf(record, withEmbeddings), relevance];
  }

  getList(index: string, options: ListOptions = {}): AsyncIterable<MemoryRecord> {
    const attributes = memoryDbAttributes(this.name, index, { [KmAttributes.limit]: options.limit ?? 0 });
    return traceIterable('km.memory_db.list', attributes, () => this.guarded('list', this.listRecords(index, options), options.signal), {
      kind: SpanKind.CLIENT,
    });
  }

  private async *listRecords(index: string, options: ListOptions): AsyncIterable<MemoryRecord> {
    const name = this.checkIndexName(index);
    const filters = this.checkFilters(options.filters);
    const limit = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : undefined;
    const withEmbeddings = options.withEmbeddings ?? false;
    if ((await this.vectorSizeOf(name)) === undefined) return;
    const records = this.driver.list(name, { filters, limit, withEmbeddings, signal: options.signal });
    let count = 0;
    try {
      for await (const record of records) {
        options.signal?.throwIfAborted();
        yield withVectorIf(record, withEmbeddings);
        if (limit !== undefined && ++count >= limit) return;
      }
    } catch (error) {
      if (!(error instanceof IndexNotFoundError)) throw error;
      this.sizes.delete(name);
    }
  }

  delete(index: string, record: { id: string }): Promise<void> {
    return this.traced('delete', index, async () => {
      const name = this.checkIndexName(index);
      const id = record?.id;
      if (typeof id !== 'string' || id.length === 0) {
        throw new InvalidInputError('invalid_argument', 'record id must be a non-empty string', { connector: this.name });
      }
      if ((await this.vectorSizeOf(name)) === undefined) return;
      await this.read(name, () => this.driver.delete(name, id));
    });
  }

  /** Releases the driver's connections or files. */
  async close(): Promise<void> {
    await this.driver.close?.();
  }

  /**
   * Runs a public operation in a `km.memory_db.<operation>` span; whatever it throws leaves as a
   * `KmError` (see {@link toKmError}), except the caller's own abort reason, which comes back untouched.
   */
  private traced<T>(operation: string, index: string | undefined, fn: () => Promise<T>, extra?: Attributes): Promise<T> {
    const guarded = async (): Promise<T> => {
      try {
        return await fn();
      } catch (error) {
        if (isAbortReason(error)) throw error;
        throw toKmError(error, this.name, operation.replace(/_/g, ' '));
      }
    };
    return withSpan(`km.memory_db.${operation}`, memoryDbAttributes(this.name, index, extra), guarded, { kind: SpanKind.CLIENT });
  }

  /** Yields what `results` yields; whatever it throws leaves as a `KmError` (see {@link toKmError}). */
  private async *guarded<T>(operation: string, results: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncIterable<T> {
    try {
      yield* results;
    } catch (error) {
      if (isAbortReason(error, signal)) throw error;
      throw toKmError(error, this.name, operation, signal);
    }
  }

  /** The driver's cosine search; undefined when the index is missing. */
  private async vectorSearch(
    name: string,
    query: string | Float32Array | number[],
    search: SearchParts,
  ): Promise<Array<[MemoryRecord, number]> | undefined> {
    let target: { vector: Float32Array | number[] } | { text: string };
    if (this.capabilities.vectorSearch) {
      target = { vector: await resolveQueryVector(query, this.embeddingGenerator, this.name, search.signal, this.queryCache) };
    } else if (typeof query === 'string') {
      target = { text: query };
    } else {
      throw new InvalidInputError('invalid_argument', `${this.name} searches by text; it cannot take a vector query`, {
        connector: this.name,
      });
    }
    const size = await this.vectorSizeOf(name);
    if (size === undefined) return undefined;
    if ('vector' in target) {
      this.checkSize(name, size, target.vector.length);
      if (!this.capabilities.zeroVectors && l2norm(target.vector) === 0) return []; // no cosine similarity to anything
    }
    search.signal?.throwIfAborted();
    return this.read(name, () => this.driver.search(name, { ...target, ...search }));
  }

  /** A `lexical` search, or a `hybrid` one fused in its final order; undefined when the index is missing. */
  private async wordSearch(
    name: string,
    query: string | Float32Array | number[],
    mode: 'lexical' | 'hybrid',
    options: SimilarityOptions,
    search: SearchParts,
  ): Promise<Array<[MemoryRecord, number]> | undefined> {
    checkModeSupported(this.capabilities, mode, this.name);
    const lexicalSearch = this.driver.lexicalSearch!.bind(this.driver);
    const text = lexicalQueryText(query, options.text, mode, this.name);
    const { filters, withEmbeddings, signal } = search;
    if (mode === 'lexical') {
      if ((await this.vectorSizeOf(name)) === undefined) return undefined;
      signal?.throwIfAborted();
      return this.read(name, () => lexicalSearch(name, { text, filters, limit: search.limit, withEmbeddings, signal }));
    }
    const fusion = checkFusion(options.fusion, this.name);
    const queryVector = await resolveQueryVector(query, this.embeddingGenerator, this.name, signal, this.queryCache);
    const candidates = hybridCandidates(search.limit);
    const vector = await this.vectorSearch(name, queryVector, { ...search, limit: candidates });
    if (vector === undefined) return undefined;
    const lexical = await this.read(name, () => lexicalSearch(name, { text, filters, limit: candidates, withEmbeddings: true, signal }));
    if (lexical === undefined) return undefined;
    return fuseHybrid({ vector, lexical, queryVector, minRelevance: search.minRelevance, limit: search.limit, fusion });
  }

  /** The normalised name, within the driver's limit. */
  private checkIndexName(index: string): string {
    const name = normalizeIndexName(index);
    const limit = this.driver.indexNameLimit;
    const bytes = Buffer.byteLength(name, 'utf8');
    if (limit && bytes > limit.bytes) {
      throw new InvalidInputError(
        'invalid_index_name',
        `index name "${name}" is ${bytes} bytes; ${limit.reason}, so at most ${limit.bytes}`,
        {
          connector: this.name,
        },
      );
    }
    return name;
  }

  /** The index's vector size, from the cache or the driver; undefined when the index does not exist. */
  private async vectorSizeOf(name: string): Promise<number | undefined> {
    const known = this.sizes.get(name);
    if (known !== undefined) return known;
    const size = await this.driver.vectorSize(name);
    if (size !== undefined) this.sizes.set(name, size);
    return size;
  }

  /** Runs a read or delete; an index that vanished meanwhile reads as empty. */
  private async read<T>(name: string, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof IndexNotFoundError)) throw error;
      this.sizes.delete(name);
      return undefined;
    }
  }

  private async write(name: string, records: CheckedRecord[]): Promise<void> {
    const { driver } = this;
    if (!driver.upsertBatch) {
      for (const record of records) await driver.upsert!(name, record);
      return;
    }
    for (const batch of batches(records, driver.maxBatchSize ?? records.length)) await driver.upsertBatch(name, batch);
  }

  private checkRecord(record: MemoryRecord): CheckedRecord {
    if (!this.capabilities.vectorSearch) return checkRecord(record, this.name);
    const checked = checkVectorRecord(record, this.name);
    if (!this.capabilities.zeroVectors && l2norm(checked.vector) === 0) {
      throw new InvalidInputError('invalid_argument', `record "${checked.id}" has a zero vector, which has no cosine similarity`, {
        connector: this.name,
      });
    }
    return checked;
  }

  /** Filters as drivers receive them: valid, and empty when anything matches; NOT refused where unsupported. */
  private checkFilters(filters: SimilarityOptions['filters']): MemoryFilter[] {
    const list = toMemoryFilters(filters);
    if (list.some((f) => f.isEmpty())) return [];
    if (!this.capabilities.negatedFilters && list.some((f) => f.conditions.some((c) => c.negated))) {
      throw new KmError('unsupported_filter', `${this.name} cannot express NOT conditions in filters`, { connector: this.name });
    }
    return list;
  }

  private checkIndexVectorSize(vectorSize: number): number {
    const max = this.driver.maxVectorSize;
    if (!Number.isInteger(vectorSize) || vectorSize <= 0 || (max !== undefined && vectorSize > max)) {
      const range = max === undefined ? 'a positive integer' : `an integer in 1..${max}`;
      throw new InvalidInputError('invalid_argument', `vector size must be ${range}, got ${vectorSize}`, { connector: this.name });
    }
    return vectorSize;
  }

  private checkSize(name: string, indexSize: number, size: number): void {
    if (this.capabilities.vectorSearch && indexSize !== size) {
      throw new KmError('vector_size_mismatch', `index "${name}" has vector size ${indexSize}, got ${size}`, { connector: this.name });
    }
  }
}

/** The parts of a driver search that every mode shares. */
type SearchParts = Omit<DriverSearch, 'vector' | 'text'>;

function withVectorIf(record: MemoryRecord, withEmbeddings: boolean): MemoryRecord {
  return withEmbeddings || record.vector.length === 0 ? record : { ...record, vector: new Float32Array(0) };
}

/**
 * The caller's abort, handed back as it came (as `fetch` does): the signal's own reason, or an
 * `AbortError` / `TimeoutError` (what `AbortSignal.abort()` and `AbortSignal.timeout()` give).
 */
function isAbortReason(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && error === signal.reason) return true;
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
