import { IndexNotFoundError, InvalidInputError, KmError, isKmError } from '../errors/km-error.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { encodeTag } from '../models/tag-encoding.js';
import { compileFilter } from '../vector-store/filter-compiler.js';
import type { RecordDefinition } from '../vector-store/record-definition-types.js';
import type { VectorStoreDriver } from '../vector-store/vector-store-driver.js';
import type { FilterNode } from '../vector-store/vector-store-filter-types.js';
import { KmRecordLayout } from './km-record-layout.js';
import type { DriverLexicalSearch, DriverList, DriverSearch, MemoryDbDriver } from './memory-db-driver.js';
import type { CheckedRecord } from './record-input.js';

/**
 * A memory DB driver over a typed vector-store driver: the one seam of a backend carries both
 * APIs. Each km index is a collection laid out by a {@link KmRecordLayout} (the connector's
 * existing tables or collections keep opening); the index's vector size is read back from the
 * store (`vectorDimensions`), lexical search is the store's `lexicalSearch` on the `content`
 * property (declared only when the store has it), and every rule stays with `MemoryDb`.
 *
 * ```ts
 * const driver = new PostgresVectorStoreDriver({ pool });
 * const db = new MemoryDb(new VectorStoreMemoryDbDriver(driver, new KmRecordLayout({ prefix: 'km-' })), { embeddingGenerator });
 * ```
 */
export class VectorStoreMemoryDbDriver implements MemoryDbDriver {
  readonly name: string;
  readonly capabilities: { zeroVectors: boolean };
  readonly indexNameLimit: { bytes: number; reason: string };
  readonly maxBatchSize: number | undefined;
  readonly maxVectorSize: number | undefined;
  /** Lexical search on the layout's `content`; undefined when the store has none (or the layout stores no content). */
  readonly lexicalSearch?: (index: string, query: DriverLexicalSearch) => Promise<Array<[MemoryRecord, number]>>;
  /** Vector size of each index seen (the definition to read and write it with). */
  private readonly sizes = new Map<string, number>();

  constructor(
    readonly store: VectorStoreDriver,
    readonly layout: KmRecordLayout = new KmRecordLayout(),
  ) {
    const refuse = (lacks: string): never => {
      throw new InvalidInputError('invalid_argument', `the ${store.name} vector store ${lacks}, which a km memory DB needs`, {
        connector: store.name,
      });
    };
    if (!store.keyTypes.includes('string')) refuse('holds no string keys');
    if (!store.distances.includes('cosine')) refuse('has no cosine distance');
    if (typeof store.vectorDimensions !== 'function') refuse('cannot read the vector size of a collection (vectorDimensions)');
    if (typeof store.query !== 'function' && typeof store.queryPages !== 'function') refuse('cannot list records (query)');
    this.name = store.name;
    this.capabilities = { zeroVectors: store.zeroVectors ?? false };
    this.maxBatchSize = store.maxBatchSize;
    this.maxVectorSize = store.maxDimensions;
    this.indexNameLimit = layout.indexNameLimit;
    if (typeof store.lexicalSearch === 'function' && layout.names.content !== false) {
      this.lexicalSearch = (index, query) => this.lexical(index, query);
    }
  }

  async vectorSize(index: string): Promise<number | undefined> {
    const size = await this.call(index, () => this.store.vectorDimensions!(this.layout.collectionOf(index), this.layout.names.embedding));
    if (size === undefined) this.sizes.delete(index);
    else this.sizes.set(index, size);
    return size;
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const existing = await this.vectorSize(index);
    if (existing !== undefined && existing !== vectorSize) {
      throw new KmError('vector_size_mismatch', `index "${index}" has vector size ${existing}, got ${vectorSize}`, {
        connector: this.name,
      });
    }
    if (existing !== undefined) return;
    await this.call(index, () => this.store.createCollection(this.layout.collectionOf(index), this.layout.definition(vectorSize)));
    this.sizes.set(index, vectorSize);
  }

  async listIndexes(): Promise<string[]> {
    return this.layout.indexesOf(await this.store.listCollections());
  }

  async deleteIndex(index: string): Promise<void> {
    this.sizes.delete(index);
    await this.call(index, () => this.store.deleteCollection(this.layout.collectionOf(index)));
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    const definition = await this.definitionOf(index);
    const rows = records.map((r) => this.layout.toStorage(r));
    await this.call(index, () => this.store.upsert(this.layout.collectionOf(index), definition, rows));
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const vector = query.vector instanceof Float32Array ? query.vector : Float32Array.from(query.vector ?? []);
    const definition = await this.definitionOf(index);
    const found = await this.call(index, () =>
      this.store.search(this.layout.collectionOf(index), definition, {
        vectorProperty: definition.vectors[0]!,
        vector,
        limit: query.limit,
        filter: this.tagFilter(definition, query.filters),
        includeVectors: query.withEmbeddings,
        signal: query.signal,
      }),
    );
    return found.map(([row, score]) => [this.layout.fromStorage(row), score]);
  }

  /**
   * The index's records by id: page by page from the store's `queryPages` when it has one (each
   * page read when the caller gets to it), else from one `query` call.
   */
  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const definition = await this.definitionOf(index);
    const collection = this.layout.collectionOf(index);
    const recordQuery = {
      filter: this.tagFilter(definition, query.filters),
      orderBy: [{ storageName: definition.key.storageName, descending: false }],
      limit: query.limit ?? Number.MAX_SAFE_INTEGER,
      includeVectors: query.withEmbeddings,
      signal: query.signal,
    };
    if (typeof this.store.queryPages === 'function') {
      const pages = await this.call(index, async () => this.store.queryPages!(collection, definition, recordQuery)[Symbol.asyncIterator]());
      let done = false;
      try {
        while (true) {
          const next = await this.call(index, () => pages.next());
          if (next.done) {
            done = true;
            return;
          }
          for (const row of next.value) yield this.layout.fromStorage(row);
        }
      } catch (error) {
        done = true; // a failed iterator is finished
        throw error;
      } finally {
        if (!done) await pages.return?.();
      }
    }
    const rows = await this.call(index, () => this.store.query!(collection, definition, recordQuery));
    for (const row of rows) yield this.layout.fromStorage(row);
  }

  async delete(index: string, id: string): Promise<void> {
    const definition = await this.definitionOf(index);
    await this.call(index, () => this.store.delete(this.layout.collectionOf(index), definition, [id]));
  }

  async close(): Promise<void> {
    await this.store.close?.();
  }

  private async lexical(index: string, query: DriverLexicalSearch): Promise<Array<[MemoryRecord, number]>> {
    const definition = await this.definitionOf(index);
    const property = definition.data.find((p) => p.fullText)!;
    const found = await this.call(index, () =>
      this.store.lexicalSearch!(this.layout.collectionOf(index), definition, {
        property,
        text: query.text,
        filter: this.tagFilter(definition, query.filters),
        limit: query.limit,
        includeVectors: query.withEmbeddings,
        signal: query.signal,
      }),
    );
    return found.map(([row, score]) => [this.layout.fromStorage(row), score]);
  }

  /** The definition of an existing index (its vector size known, or read); `IndexNotFoundError` when it is missing. */
  private async definitionOf(index: string): Promise<RecordDefinition> {
    const size = this.sizes.get(index) ?? (await this.vectorSize(index));
    if (size === undefined) throw new IndexNotFoundError(index, { connector: this.name });
    return this.layout.definition(size);
  }

  /** Runs a store call; a missing collection is a missing index (the wrapper's contract). */
  private async call<T>(index: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isKmError(error, 'collection_not_found')) {
        this.sizes.delete(index);
        throw new IndexNotFoundError(index, { connector: this.name, cause: error });
      }
      throw error;
    }
  }

  /** KM's filters (AND inside one, OR across the list; NOT: no value of the key equals) on the tags array. */
  private tagFilter(definition: RecordDefinition, filters: readonly MemoryFilter[]): FilterNode | undefined {
    if (filters.length === 0) return undefined;
    const either = filters.map((f) => ({
      and: f.conditions.map((c) => {
        const has = { tags: { contains: encodeTag(c.key, c.value) } };
        return c.negated ? { not: has } : has;
      }),
    }));
    return compileFilter(definition, either.length === 1 ? either[0] : { or: either });
  }
}
