import { type ITextEmbeddingGenerator, InvalidInputError, type KeyValue, KmError, type RecordDefinition } from '@km/core';
import {
  callDriver,
  checkKey,
  checkVectorValue,
  compileFilter,
  type FilterNode,
  filterOperatorsOf,
  fromStorageRecord,
  isBetter,
  type MappedRecord,
  passesMinScore,
  type ResolvedVectorProperty,
  type StorageRecord,
  storedKey,
  toStorageRecord,
  unsupportedFilter,
  type VectorStoreDriver,
} from '@km/core/connector';
import { checkQueryOptions } from './query-options.js';
import { checkLexicalOptions, checkSearchOptions } from './search-options.js';
import { embedVectors, type EmbeddingTask, missingGenerator } from './vector-embedding.js';
import type {
  GetRecordOptions,
  IVectorStoreCollection,
  LexicalSearchOptions,
  RecordQueryOptions,
  VectorSearchOptions,
  VectorSearchResult,
} from './vector-store-types.js';

/**
 * A typed collection over a driver: checks records, keys, filters and search options against
 * the definition, embeds missing vectors and text queries, and leaves the driver only the
 * translation to its backend. Made by `VectorStore.getCollection`.
 *
 * ```ts
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert({ hotelId: 'h1', name: 'Sea View', description: 'Quiet rooms by the sea' });
 * const [best] = await hotels.search('a calm place near the water', { top: 1 });
 * ```
 */
export class VectorStoreCollection<R> implements IVectorStoreCollection<R> {
  private readonly storageDefinition: RecordDefinition;

  constructor(
    private readonly driver: VectorStoreDriver,
    readonly name: string,
    readonly definition: RecordDefinition<R>,
    private readonly embeddingGenerator: ITextEmbeddingGenerator | undefined,
  ) {
    this.storageDefinition = definition as RecordDefinition;
  }

  exists(): Promise<boolean> {
    return this.call('check the collection', undefined, () => this.driver.collectionExists(this.name));
  }

  ensureExists(): Promise<void> {
    return this.call('create the collection', undefined, () => this.driver.createCollection(this.name, this.storageDefinition));
  }

  ensureDeleted(): Promise<void> {
    return this.call('delete the collection', undefined, () => this.driver.deleteCollection(this.name));
  }

  upsert(record: R, options?: { signal?: AbortSignal }): Promise<KeyValue>;
  upsert(records: readonly R[], options?: { signal?: AbortSignal }): Promise<KeyValue[]>;
  async upsert(input: R | readonly R[], options: { signal?: AbortSignal } = {}): Promise<KeyValue | KeyValue[]> {
    const many = Array.isArray(input);
    const records: readonly unknown[] = many ? input : [input];
    const mapped = records.map((record, i) => toStorageRecord(this.definition, record, many ? `record ${i}` : 'record'));
    const unique = new Map<KeyValue, MappedRecord>();
    for (const record of mapped) {
      unique.delete(record.key);
      unique.set(record.key, record);
    }
    await this.embedMissingVectors([...unique.values()], options.signal);
    const storage = [...unique.values()].map((record) => record.storage);
    const size = this.driver.maxBatchSize ?? storage.length;
    for (let start = 0; start < storage.length; start += Math.max(1, size)) {
      const batch = storage.slice(start, start + Math.max(1, size));
      await this.call('upsert', options.signal, () => this.driver.upsert(this.name, this.storageDefinition, batch));
    }
    const keys = mapped.map((record) => record.key);
    return many ? keys : keys[0]!;
  }

  async get(key: KeyValue, options: GetRecordOptions = {}): Promise<R | undefined> {
    const [record] = await this.getMany([key], options);
    return record;
  }

  async getMany(keys: readonly KeyValue[], options: GetRecordOptions = {}): Promise<R[]> {
    const wanted = this.checkKeys(keys);
    if (wanted.length === 0) return [];
    const includeVectors = options.includeVectors === true;
    const found = await this.call('get', options.signal, () => this.driver.get(this.name, this.storageDefinition, wanted, includeVectors));
    const byKey = new Map<KeyValue, StorageRecord>();
    for (const record of found) byKey.set(storedKey(this.definition, record[this.definition.key.storageName]), record);
    return wanted.flatMap((key) => {
      const record = byKey.get(key);
      return record ? [fromStorageRecord(this.definition, record, includeVectors)] : [];
    });
  }

  async delete(key: KeyValue | readonly KeyValue[], options: { signal?: AbortSignal } = {}): Promise<void> {
    const keys = this.checkKeys(Array.isArray(key) ? key : [key as KeyValue]);
    if (keys.length === 0) return;
    await this.call('delete', options.signal, () => this.driver.delete(this.name, this.storageDefinition, keys));
  }

  async search(query: string | Float32Array | readonly number[], options: VectorSearchOptions<R> = {}): Promise<VectorSearchResult<R>[]> {
    const checked = checkSearchOptions(this.definition, options);
    const filter = this.checkFilter(options.filter);
    const property = checked.vectorProperty;
    const vector = await this.queryVector(query, property, options.signal);
    const hits = await this.call('search', options.signal, () =>
      this.driver.search(this.name, this.storageDefinition, {
        vectorProperty: property,
        vector,
        limit: checked.top + checked.skip,
        filter,
        includeVectors: checked.includeVectors,
        signal: options.signal,
      }),
    );
    const keyName = this.definition.key.storageName;
    return hits
      .filter(([, score]) => !Number.isNaN(score) && passesMinScore(property.distance, score, checked.minScore))
      .map(([record, score]) => ({ record, score, key: storedKey(this.definition, record[keyName]) }))
      .sort((a, b) => compareHits(property, a, b))
      .slice(checked.skip, checked.skip + checked.top)
      .map(({ record, score }) => ({ record: fromStorageRecord(this.definition, record, checked.includeVectors), score }));
  }

  async lexicalSearch(text: string, options: LexicalSearchOptions<R> = {}): Promise<VectorSearchResult<R>[]> {
    const driver = this.driver;
    if (!driver.lexicalSearch) {
      throw new KmError('unsupported_operation', `${driver.name} has no lexical search (its driver has no lexicalSearch)`, {
        connector: driver.name,
      });
    }
    if (typeof text !== 'string' || text.trim() === '')
      throw new InvalidInputError('invalid_argument', 'a lexical search needs a text with words');
    const checked = checkLexicalOptions(this.definition, options);
    const filter = this.checkFilter(options.filter);
    const property = this.storageDefinition.data.find((p) => p.name === checked.property.name)!;
    const hits = await this.call('lexical search', options.signal, () =>
      driver.lexicalSearch!(this.name, this.storageDefinition, {
        property,
        text,
        filter,
        limit: checked.top + checked.skip,
        includeVectors: checked.includeVectors,
        signal: options.signal,
      }),
    );
    const keyName = this.definition.key.storageName;
    return hits
      .filter(([, score]) => !Number.isNaN(score) && (checked.minScore === undefined || score >= checked.minScore))
      .map(([record, score]) => ({ record, score, key: storedKey(this.definition, record[keyName]) }))
      .sort((a, b) => (a.score !== b.score ? b.score - a.score : compareKeys(a.key, b.key)))
      .slice(checked.skip, checked.skip + checked.top)
      .map(({ record, score }) => ({ record: fromStorageRecord(this.definition, record, checked.includeVectors), score }));
  }

  async query(options: RecordQueryOptions<R> = {}): Promise<R[]> {
    const checked = checkQueryOptions(this.definition, options);
    const filter = this.checkFilter(options.filter);
    const driver = this.driver;
    if (!driver.query) {
      throw new KmError('unsupported_operation', `${driver.name} cannot read records by filter (its driver has no query)`, {
        connector: driver.name,
      });
    }
    const records = await this.call('query', options.signal, () =>
      driver.query!(this.name, this.storageDefinition, {
        filter,
        orderBy: checked.orderBy,
        limit: checked.top + checked.skip,
        includeVectors: checked.includeVectors,
        signal: options.signal,
      }),
    );
    return records
      .slice(checked.skip, checked.skip + checked.top)
      .map((record) => fromStorageRecord(this.definition, record, checked.includeVectors));
  }

  private checkKeys(keys: readonly unknown[]): KeyValue[] {
    if (!Array.isArray(keys)) throw new InvalidInputError('invalid_argument', 'keys must be an array');
    return [...new Set(keys.map((key) => checkKey(this.definition.key, key)))];
  }

  private checkFilter(filter: unknown): FilterNode | undefined {
    const node = compileFilter(this.definition, filter);
    const supported = this.driver.filterOperators;
    if (node && supported) {
      for (const op of filterOperatorsOf(node)) {
        if (!supported.includes(op)) {
          throw unsupportedFilter(this.driver.name, op, `${this.driver.name} translates ${supported.join(', ')}`);
        }
      }
    }
    return node;
  }

  private async queryVector(
    query: string | Float32Array | readonly number[],
    property: ResolvedVectorProperty,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array> {
    if (typeof query !== 'string') return checkVectorValue(property, query, 'the query vector');
    if (property.embed === undefined) {
      throw new InvalidInputError(
        'invalid_argument',
        `vector ${property.name} has no embed source, so a text query cannot be embedded for it; search with a vector`,
      );
    }
    if (!this.embeddingGenerator) throw missingGenerator(property);
    let vector: Float32Array | undefined;
    await embedVectors(this.embeddingGenerator, [{ property, text: query, assign: (v) => (vector = v) }], 'query', signal);
    return vector!;
  }

  private async embedMissingVectors(records: readonly MappedRecord[], signal: AbortSignal | undefined): Promise<void> {
    const tasks: EmbeddingTask[] = [];
    for (const record of records) {
      for (const property of record.toEmbed) {
        const source = this.definition.data.find((p) => p.name === property.embed)!;
        tasks.push({
          property,
          text: record.storage[source.storageName] as string,
          assign: (vector) => (record.storage[property.storageName] = vector),
        });
      }
    }
    await embedVectors(this.embeddingGenerator, tasks, 'document', signal);
  }

  private call<T>(what: string, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    return callDriver(this.driver.name, `${what} in collection ${this.name}`, signal, run);
  }
}

interface Hit {
  readonly score: number;
  readonly key: KeyValue;
}

/** Best score first; ties by key ascending (numbers numerically, strings by UTF-16 code units). */
function compareHits(property: ResolvedVectorProperty, a: Hit, b: Hit): number {
  if (a.score !== b.score) return isBetter(property.distance, a.score, b.score) ? -1 : 1;
  return compareKeys(a.key, b.key);
}

function compareKeys(a: KeyValue, b: KeyValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
