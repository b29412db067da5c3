import { IndexNotFoundError, InvalidInputError, KmError, isKmError } from '../errors/km-error.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { decodeTags, encodeTag, encodeTags } from '../models/tag-encoding.js';
import { checkCollectionName, MAX_COLLECTION_NAME_LENGTH } from '../vector-store/collection-name.js';
import { compileFilter } from '../vector-store/filter-compiler.js';
import { defineRecord } from '../vector-store/record-definition.js';
import type { RecordDefinition } from '../vector-store/record-definition-types.js';
import type { StorageRecord, VectorStoreDriver } from '../vector-store/vector-store-driver.js';
import type { FilterNode } from '../vector-store/vector-store-filter-types.js';
import type { DriverList, DriverSearch, MemoryDbDriver } from './memory-db-driver.js';
import type { CheckedRecord } from './record-input.js';

/**
 * Collections that hold km indexes start with this (other collections of the store are left
 * alone). Not `km-`: a memory DB connector's own tables (`km-<index>`) may share the backend.
 */
export const MEMORY_COLLECTION_PREFIX = 'km_index_';
/** The record that remembers an index's vector size (it has no vector, so no search finds it). */
const META_KEY = '~km-index';
const META_TAG = '~km-meta';

/**
 * Kernel Memory's fixed record schema as a typed record definition: `id` (string key), `tags`
 * (the `key:value` pairs as a filterable `string[]`), `payload` (its JSON text) and `embedding`
 * (cosine). A tag filter is `contains` on `tags`, a NOT filter `not contains`: the semantics
 * of KM's filters.
 */
export function memoryRecordDefinition(vectorSize: number): RecordDefinition {
  return defineRecord({
    key: 'id',
    data: { tags: { type: 'string[]', filterable: true }, payload: { type: 'string' } },
    vectors: { embedding: { dimensions: vectorSize, distance: 'cosine', optional: true } },
  }) as RecordDefinition;
}

/**
 * A memory DB driver over any typed vector-store driver: a connector that implements
 * `VectorStoreDriver` once gets `IMemoryDb` (KM's pipeline, search and ask) from it, with every
 * rule still owned by `MemoryDb`. Each km index is the collection `km_index_<index>`.
 *
 * ```ts
 * const db = new MemoryDb(new VectorStoreMemoryDbDriver(new PostgresVectorStoreDriver({ pool })), { embeddingGenerator });
 * ```
 */
export class VectorStoreMemoryDbDriver implements MemoryDbDriver {
  readonly name: string;
  readonly capabilities = { zeroVectors: false } as const;
  readonly indexNameLimit: { bytes: number; reason: string };
  readonly maxBatchSize: number | undefined;
  private readonly definitions = new Map<number, RecordDefinition>();
  /** Vector size of each index seen (the definition to read and write it with). */
  private readonly sizes = new Map<string, number>();

  constructor(readonly store: VectorStoreDriver) {
    if (!store.keyTypes.includes('string')) {
      throw new InvalidInputError('invalid_argument', `the ${store.name} vector store holds no string keys, which km record ids need`);
    }
    if (!store.distances.includes('cosine')) {
      throw new InvalidInputError('invalid_argument', `the ${store.name} vector store has no cosine distance, which km relevance needs`);
    }
    this.name = store.name;
    this.maxBatchSize = store.maxBatchSize;
    const limit = store.collectionNameLimit ?? {
      bytes: MAX_COLLECTION_NAME_LENGTH,
      reason: `collection names hold ${MAX_COLLECTION_NAME_LENGTH} characters`,
    };
    this.indexNameLimit = {
      bytes: Math.min(limit.bytes, MAX_COLLECTION_NAME_LENGTH) - MEMORY_COLLECTION_PREFIX.length,
      reason: `${limit.reason}, and the prefix "${MEMORY_COLLECTION_PREFIX}" takes ${MEMORY_COLLECTION_PREFIX.length}`,
    };
  }

  async vectorSize(index: string): Promise<number | undefined> {
    const name = this.collectionOf(index);
    if (!(await this.store.collectionExists(name))) {
      this.sizes.delete(index);
      return undefined;
    }
    const [meta] = await this.store.get(name, this.definitionOf(index), [META_KEY], false);
    const size = meta ? (JSON.parse(String(meta.payload)) as { vectorSize?: unknown }).vectorSize : undefined;
    if (typeof size !== 'number') {
      throw new KmError('storage_corrupt', `collection "${name}" holds no km index metadata`, { connector: this.name });
    }
    this.sizes.set(index, size);
    return size;
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const existing = await this.vectorSize(index).catch((e: unknown) => (isKmError(e, 'storage_corrupt') ? undefined : Promise.reject(e)));
    if (existing !== undefined) {
      if (existing !== vectorSize) {
        throw new KmError('vector_size_mismatch', `index "${index}" holds vectors of ${existing} dimensions, not ${vectorSize}`, {
          connector: this.name,
        });
      }
      return;
    }
    const name = this.collectionOf(index);
    const definition = this.definition(vectorSize);
    await this.store.createCollection(name, definition);
    const meta: StorageRecord = { id: META_KEY, tags: [META_TAG], payload: JSON.stringify({ vectorSize }), embedding: null };
    await this.store.upsert(name, definition, [meta]);
    this.sizes.set(index, vectorSize);
  }

  async listIndexes(): Promise<string[]> {
    const names = await this.store.listCollections();
    return names.filter((n) => n.startsWith(MEMORY_COLLECTION_PREFIX)).map((n) => n.slice(MEMORY_COLLECTION_PREFIX.length));
  }

  async deleteIndex(index: string): Promise<void> {
    await this.store.deleteCollection(this.collectionOf(index));
    this.sizes.delete(index);
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    const definition = this.definitionOf(index);
    const rows = records.map(
      (r): StorageRecord => ({
        id: r.id,
        tags: encodeTags(r.tags),
        payload: r.payloadJson,
        embedding: r.vector instanceof Float32Array ? r.vector : Float32Array.from(r.vector),
      }),
    );
    await this.writing(index, () => this.store.upsert(this.collectionOf(index), definition, rows));
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const vector = query.vector instanceof Float32Array ? query.vector : Float32Array.from(query.vector ?? []);
    const definition = this.definitionOf(index);
    const found = await this.store.search(this.collectionOf(index), definition, {
      vectorProperty: definition.vectors[0]!,
      vector,
      limit: query.limit,
      filter: tagFilter(definition, query.filters),
      includeVectors: query.withEmbeddings,
      signal: query.signal,
    });
    return found.filter(([row]) => row.id !== META_KEY).map(([row, score]) => [toMemoryRecord(row), score]);
  }

  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const definition = this.definitionOf(index);
    if (!this.store.query) {
      throw new KmError('unsupported_operation', `the ${this.name} vector store cannot list records`, { connector: this.name });
    }
    // One more than asked: the metadata record may be among them.
    const rows = await this.store.query(this.collectionOf(index), definition, {
      filter: tagFilter(definition, query.filters),
      orderBy: [{ storageName: 'id', descending: false }],
      limit: query.limit === undefined ? Number.MAX_SAFE_INTEGER : query.limit + 1,
      includeVectors: query.withEmbeddings,
      signal: query.signal,
    });
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    for (const row of rows) {
      if (row.id === META_KEY) continue;
      if (left-- <= 0) return;
      yield toMemoryRecord(row);
    }
  }

  delete(index: string, id: string): Promise<void> {
    return this.store.delete(this.collectionOf(index), this.definitionOf(index), [id]);
  }

  async close(): Promise<void> {
    await this.store.close?.();
  }

  /** The collection of an index (its name checked as every collection name is). */
  private collectionOf(index: string): string {
    return checkCollectionName(`${MEMORY_COLLECTION_PREFIX}${index}`, this.store);
  }

  /** The definition of an index: of its known vector size (MemoryDb asks `vectorSize` before any read or write). */
  private definitionOf(index: string): RecordDefinition {
    return this.definition(this.sizes.get(index) ?? 1);
  }

  /** The definition of an index of `vectorSize`. */
  private definition(vectorSize: number): RecordDefinition {
    let definition = this.definitions.get(vectorSize);
    if (!definition) {
      definition = memoryRecordDefinition(vectorSize);
      this.definitions.set(vectorSize, definition);
    }
    return definition;
  }

  /** Runs a write; a missing collection is a missing index (the wrapper's contract). */
  private async writing(index: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (isKmError(error, 'collection_not_found')) throw new IndexNotFoundError(index, { connector: this.name, cause: error });
      throw error;
    }
  }
}

/** KM's filters (AND inside one, OR across the list; NOT: no value of the key equals) on the `tags` array. */
function tagFilter(definition: RecordDefinition, filters: readonly MemoryFilter[]): FilterNode | undefined {
  if (filters.length === 0) return undefined;
  const either = filters.map((f) => ({
    and: f.conditions.map((c) => {
      const has = { tags: { contains: encodeTag(c.key, c.value) } };
      return c.negated ? { not: has } : has;
    }),
  }));
  return compileFilter(definition, either.length === 1 ? either[0] : { or: either });
}

function toMemoryRecord(row: StorageRecord): MemoryRecord {
  const vector = row.embedding instanceof Float32Array ? row.embedding : new Float32Array(0);
  return {
    id: String(row.id),
    vector,
    tags: decodeTags(row.tags as string[] | null),
    payload: JSON.parse(String(row.payload ?? '{}')) as Record<string, unknown>,
  };
}
