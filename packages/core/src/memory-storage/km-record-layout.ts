import { InvalidInputError } from '../errors/km-error.js';
import { type MemoryRecord, PayloadFields } from '../models/memory-record.js';
import { decodeTags, encodeTags } from '../models/tag-encoding.js';
import { indexNamesUnderPrefix } from '../validation/index-name.js';
import { defineRecord } from '../vector-store/record-definition.js';
import type { RecordDefinition } from '../vector-store/record-definition-types.js';
import type { StorageRecord } from '../vector-store/vector-store-driver.js';
import { indexNameLimit } from './memory-db-driver.js';
import { partitionText } from './partition-text.js';
import type { CheckedRecord } from './record-input.js';

/** Storage names of KM's record fields in a collection (a backend's columns or fields). */
export interface KmStorageNames {
  /** The record id (the collection's string key). @default 'id' */
  id: string;
  /** The vector. @default 'embedding' */
  embedding: string;
  /** The `key:value` tags, a filterable `string[]`. @default 'tags' */
  tags: string;
  /** The payload as JSON text. @default 'payload' */
  payload: string;
  /** The partition text (`payload.text`), a `fullText` string for lexical search; `false`: not stored. @default 'content' */
  content: string | false;
}

/** Options of a {@link KmRecordLayout}. */
export interface KmRecordLayoutOptions {
  /** Index `docs` lives in collection `<prefix>docs`. @default 'km-' */
  prefix?: string;
  /** Collections of some indexes (index name → collection name), outside the prefix. */
  collections?: Readonly<Record<string, string>>;
  /** Storage names of the fields; defaults in {@link KmStorageNames}. */
  storageNames?: Partial<KmStorageNames>;
  /** Longest collection name of the backend, in UTF-8 bytes, and what it is called. @default 128 bytes of "collection names" */
  collectionNames?: { maxBytes: number; what: string };
  /**
   * Keep the partition text once, in `content`: the stored payload leaves out a non-empty
   * `text`, and reading puts it back from `content` (a payload that holds its own `text`, as
   * written before, reads as it is). Needs a `content` storage name. @default false
   */
  textOnce?: boolean;
}

export const DEFAULT_KM_STORAGE_NAMES: KmStorageNames = Object.freeze({
  id: 'id',
  embedding: 'embedding',
  tags: 'tags',
  payload: 'payload',
  content: 'content',
});

/**
 * How KM's memory records (id, vector, tags, payload) sit in a typed vector store: which
 * collection holds an index, and the record definition of its records: `id` (string key),
 * `tags` (the `key:value` pairs as a filterable `string[]`: a KM filter is `contains` on it,
 * NOT is `not contains`), `payload` (its JSON text), `content` (the partition text, `fullText`,
 * derived from `payload.text`) and `embedding` (cosine). A connector describes its existing
 * layout once (prefix, mapped collections, storage names), so data it wrote keeps opening.
 *
 * ```ts
 * const layout = new KmRecordLayout({ prefix: 'km-', storageNames: { embedding: 'vec' } });
 * layout.collectionOf('docs'); // 'km-docs'
 * ```
 */
export class KmRecordLayout {
  readonly prefix: string;
  readonly names: KmStorageNames;
  /** Longest normalised index name (UTF-8 bytes) whose collection name the backend can hold. */
  readonly indexNameLimit: { bytes: number; reason: string };
  private readonly collections: ReadonlyMap<string, string>;
  private readonly definitions = new Map<number, RecordDefinition>();
  private readonly textOnce: boolean;

  constructor(options: KmRecordLayoutOptions = {}) {
    this.prefix = options.prefix ?? 'km-';
    this.names = { ...DEFAULT_KM_STORAGE_NAMES, ...options.storageNames };
    this.collections = new Map(Object.entries(options.collections ?? {}));
    const { maxBytes, what } = options.collectionNames ?? { maxBytes: 128, what: 'collection names' };
    this.indexNameLimit = indexNameLimit(what, maxBytes, this.prefix);
    this.textOnce = options.textOnce === true && this.names.content !== false;
    const used = Object.values(this.names).filter((n): n is string => n !== false);
    if (new Set(used).size !== used.length) {
      throw new InvalidInputError('invalid_argument', `KM record fields need distinct storage names, got ${JSON.stringify(this.names)}`);
    }
  }

  /** The collection that holds an index. */
  collectionOf(index: string): string {
    return this.collections.get(index) ?? `${this.prefix}${index}`;
  }

  /** The indexes held by these collections: those mapped to one of them, and those under the prefix not mapped elsewhere. */
  indexesOf(collections: Iterable<string>): string[] {
    const names = new Set(collections);
    const found = new Set(indexNamesUnderPrefix(names, this.prefix).filter((index) => !this.collections.has(index)));
    for (const [index, collection] of this.collections) if (names.has(collection)) found.add(index);
    return [...found];
  }

  /** The definition of an index's records, of vectors of `vectorSize`. */
  definition(vectorSize: number): RecordDefinition {
    let definition = this.definitions.get(vectorSize);
    if (!definition) {
      const n = this.names;
      const data: Record<string, { type: 'string' | 'string[]'; filterable?: boolean; fullText?: boolean; storageName: string }> = {
        tags: { type: 'string[]', filterable: true, storageName: n.tags },
        payload: { type: 'string', storageName: n.payload },
      };
      if (n.content !== false) data.content = { type: 'string', fullText: true, storageName: n.content };
      definition = defineRecord({
        key: { name: 'id', storageName: n.id },
        data,
        vectors: { embedding: { dimensions: vectorSize, distance: 'cosine', storageName: n.embedding } },
      }) as RecordDefinition;
      this.definitions.set(vectorSize, definition);
    }
    return definition;
  }

  /** The stored form of a checked record. */
  toStorage(record: CheckedRecord): StorageRecord {
    const n = this.names;
    const row: StorageRecord = {
      [n.id]: record.id,
      [n.tags]: encodeTags(record.tags),
      [n.payload]: record.payloadJson,
      [n.embedding]: record.vector instanceof Float32Array ? record.vector : Float32Array.from(record.vector),
    };
    if (n.content === false) return row;
    const text = partitionText(record.payloadJson);
    row[n.content] = text;
    if (this.textOnce && text !== '') {
      const { [PayloadFields.text]: _, ...rest } = JSON.parse(record.payloadJson) as Record<string, unknown>;
      row[n.payload] = JSON.stringify(rest);
    }
    return row;
  }

  /** The memory record of a stored one (no vector when it was not read). */
  fromStorage(row: StorageRecord): MemoryRecord {
    const n = this.names;
    const vector = row[n.embedding];
    return {
      id: String(row[n.id]),
      vector: vector instanceof Float32Array ? vector : new Float32Array(0),
      tags: decodeTags(row[n.tags] as string[] | null),
      payload: this.withText(payloadObject(row[n.payload]), row),
    };
  }
  /** The payload with its partition text put back from `content` when stored once (see `textOnce`). */
  private withText(payload: Record<string, unknown>, row: StorageRecord): Record<string, unknown> {
    if (!this.textOnce || PayloadFields.text in payload) return payload;
    const text = row[this.names.content as string];
    return typeof text === 'string' && text !== '' ? { [PayloadFields.text]: text, ...payload } : payload;
  }
}

/**
 * A stored payload as an object: JSON text of an object, or an object as the backend keeps it.
 * Anything else (text that is no JSON or the JSON of no object, e.g. written by another program;
 * null, an array, a number) reads as `{}`, as km 0.x read it, instead of failing the whole read.
 */
function payloadObject(stored: unknown): Record<string, unknown> {
  let value = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      return {};
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
