import { InvalidInputError, KmError, type KeyValue, type RecordDefinition } from '@km/core';
import {
  type DriverRecordQuery,
  type DriverVectorQuery,
  recordOrder,
  type StorageRecord,
  type VectorStoreDriver,
  collectionNamesUnderPrefix,
} from '@km/core/connector';
import { resolveRedisOptions, type ResolvedRedisOptions } from '../redis-config.js';
import { RedisConnection } from '../redis-connection.js';
import { isMissingIndex, translateRedisError } from '../redis-errors.js';
import { replyFields, replyList, replyNumber } from '../reply-fields.js';
import { toFloat32Blob } from '../vector-blob.js';
import { MATCH_NOTHING, toRedisVectorQuery } from './redis-vector-filter.js';
import {
  decodeTagValue,
  type FieldValue,
  fromVectorHash,
  keyOfHashKey,
  keyText,
  type PlainFields,
  toVectorHash,
} from './redis-vector-hash.js';
import { attributeNames, createCollectionCommand, indexKind, SCORE_ALIAS } from './redis-vector-schema.js';
import { scoreFromRedisDistance } from './redis-vector-scores.js';
import type { RedisVectorStoreOptions } from './redis-vector-store-options.js';

const CONNECTOR = 'redis';
/** RediSearch's largest DIM. */
const MAX_DIMENSIONS = 32_768;

/** Keys per FT.CURSOR READ, and hashes per round of HMGETs. */
const PAGE = 1000;

/** The parts of an FT.AGGREGATE WITHCURSOR / FT.CURSOR READ reply read here. */
interface CursorReply {
  results: unknown[];
  cursor: number;
}

/** The parts of an FT.SEARCH reply read here (node-redis's transform, RESP2 or RESP3). */
interface SearchReply {
  documents: Array<{ id: string; value: Record<string, FieldValue> }>;
}

/**
 * How a {@link RedisVectorStoreDriver} stores what it is given, beyond its public options: the
 * storage of KM's memory records as km 0.x wrote them (`RedisMemoryDb` sets all of them), so
 * those hashes and indexes keep opening. Internal: not exported from the package.
 */
export interface RedisStorageOptions {
  /**
   * The key's hash field holds the key as it is (not in the TAG encoding) and is not indexed:
   * no filter can be on the key. KM's `id`.
   */
  plainKey?: boolean;
  /**
   * String properties (storage names) kept as their text, as is (not in the TAG encoding), and
   * never indexed: KM's `payload`, its JSON text. They must not be filterable.
   */
  plainText?: readonly string[];
  /**
   * Keeps the dimensions of the (first) vector under the key `{prefix}{collection}` (SET at
   * creation, DEL with the index) for servers whose FT.INFO reports no `dim` (RediSearch
   * 2.4–2.6): `vectorDimensions` reads it there. KM's size key.
   */
  vectorSizeKey?: boolean;
  /**
   * `listCollections` names every search index under the prefix, not only those that are valid
   * collection names (KM's layout filters them itself, its index names and prefix allow `:` and `.`).
   */
  listEveryIndex?: boolean;
  /**
   * `delete` sends its DEL without asking FT.INFO first whether the index exists: a DEL of
   * hashes creates nothing, so a delete in a missing collection is a no-op instead of
   * `collection_not_found`, which only the extra round trip could tell. For `MemoryDb`, where a
   * delete in a missing index is a no-op anyway (one request per delete, as km 0.x sent).
   */
  uncheckedDeletes?: boolean;
}

/**
 * The Redis Query Engine driver of {@link RedisVectorStore}: one search index
 * `{prefix}{collection}` per collection over the hashes `{prefix}{collection}:{key}` (fields
 * named by storage name), see `createCollectionCommand` for the schema and `toRedisVectorQuery`
 * for filters. A search is a KNN query with the filter as a pre-filter, sorted by distance; the
 * distance is turned into the convention of the searched property (`scoreFromRedisDistance`).
 * Writes are one MULTI per batch (DEL then HSET, so a value set to null is removed).
 */
export class RedisVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly maxDimensions = MAX_DIMENSIONS;
  readonly maxBatchSize: number;
  readonly collectionPrefix: string;
  private readonly settings: ResolvedRedisOptions;
  private readonly connection: RedisConnection;
  private readonly storage: RedisStorageOptions;
  private readonly plain: PlainFields;

  /**
   * @param options how to reach Redis and lay out collections (see {@link RedisVectorStoreOptions}).
   * @param storage internal: how `RedisMemoryDb` keeps KM's records (see {@link RedisStorageOptions}).
   */
  constructor(options: RedisVectorStoreOptions, storage: RedisStorageOptions = {}) {
    if (!options.client && !options.url) {
      throw new InvalidInputError('invalid_argument', 'give RedisVectorStore a client or a url', { connector: CONNECTOR });
    }
    this.settings = resolveRedisOptions({ ...options, indexPrefix: options.collectionPrefix ?? 'kmvs-' });
    this.collectionPrefix = this.settings.indexPrefix;
    this.maxBatchSize = this.settings.batchSize;
    this.connection = new RedisConnection(options);
    this.storage = storage;
    this.plain = { plainKey: storage.plainKey, plainText: new Set(storage.plainText ?? []) };
  }

  async listCollections(): Promise<string[]> {
    const names = replyList(await this.call('', (c) => c.sendCommand(['FT._LIST']))).map(String);
    if (this.storage.listEveryIndex) {
      return names.filter((n) => n.startsWith(this.collectionPrefix)).map((n) => n.slice(this.collectionPrefix.length));
    }
    return collectionNamesUnderPrefix(names, this.collectionPrefix);
  }

  /**
   * The DIM of the VECTOR attribute `storageName` as FT.INFO reports it; on servers that do not
   * report it (RediSearch 2.4–2.6), the size key when `vectorSizeKey` (else `transient`: not
   * known yet). Undefined when the index does not exist; `invalid_argument` when it exists
   * without that vector attribute (not an index this layout made).
   */
  async vectorDimensions(name: string, storageName: string): Promise<number | undefined> {
    const attributes = await this.info(name);
    if (attributes === undefined) return undefined;
    const vector = attributes.find((a) => String(a.get('identifier') ?? a.get('attribute')) === storageName);
    if (!vector) {
      throw new KmError('invalid_argument', `search index "${this.indexName(name)}" has no "${storageName}" vector field: not a km index`, {
        connector: CONNECTOR,
      });
    }
    const size =
      replyNumber(vector.get('dim')) ??
      (this.storage.vectorSizeKey ? replyNumber(await this.call(name, (c) => c.get(this.indexName(name)))) : undefined);
    if (size === undefined) {
      throw new KmError('transient', `the vector size of search index "${this.indexName(name)}" is not known yet`, {
        connector: CONNECTOR,
        transient: true,
      });
    }
    return size;
  }

  async collectionExists(name: string): Promise<boolean> {
    return (await this.info(name)) !== undefined;
  }

  /**
   * FT.CREATE; when the index exists (made earlier, by a concurrent caller, or by your own
   * FT.CREATE over the same key prefix), checks that it has an attribute for every vector and
   * filterable property, and throws `invalid_argument` naming the first missing one.
   */
  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    const existing = await this.info(name);
    if (!existing) {
      const command = createCollectionCommand(this.indexName(name), this.keyPrefix(name), definition, this.settings, this.plain);
      try {
        await this.connection.ready();
        await this.connection.client.sendCommand(command);
        const vector = definition.vectors[0];
        if (this.storage.vectorSizeKey && vector) await this.connection.client.set(this.indexName(name), String(vector.dimensions));
        return;
      } catch (error) {
        if (!/index already exists/i.test(error instanceof Error ? error.message : '')) throw translateRedisError(error, name);
      }
    }
    this.checkAttributes(name, definition, existing ?? (await this.info(name)));
  }

  async deleteCollection(name: string): Promise<void> {
    try {
      await this.connection.ready();
      await this.connection.client.sendCommand(['FT.DROPINDEX', this.indexName(name), 'DD']);
    } catch (error) {
      if (!isMissingIndex(error)) throw translateRedisError(error, name);
    } finally {
      // The size key is a cache: failing to remove it must not hide FT.DROPINDEX's error.
      if (this.storage.vectorSizeKey) await this.call(name, (c) => c.del(this.indexName(name))).catch(() => undefined);
    }
  }

  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void> {
    await this.mustExist(name);
    await this.call(name, (c) => {
      const multi = c.multi();
      for (const record of records) {
        const key = this.hashKey(name, record[definition.key.storageName] as KeyValue);
        multi.del(key).hSet(key, toVectorHash(definition, record, this.plain));
      }
      return multi.exec();
    });
  }

  /**
   * HMGET of each key, {@link PAGE} keys at a time: each page's commands are sent together (one
   * pipeline) and answered before the next page is sent, so a long list of keys never has more
   * than one page of commands in flight.
   */
  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    if (keys.length === 0) return [];
    const fields = this.storedFields(definition, includeVectors);
    const records: StorageRecord[] = [];
    for (let start = 0; start < keys.length; start += PAGE) {
      const page = keys.slice(start, start + PAGE);
      // Sent together, node-redis writes them as one pipeline.
      const rows = (await this.call(
        name,
        (c) => Promise.all(page.map((k) => c.hmGet(this.hashKey(name, k), fields))),
        true,
      )) as FieldValue[][];
      rows.forEach((row, i) => {
        // Every record has its key field: all null means no such hash.
        if (row.every((v) => v === null || v === undefined)) return;
        records.push(
          fromVectorHash(definition, page[i]!, Object.fromEntries(fields.map((f, j) => [f, row[j]])), includeVectors, this.plain),
        );
      });
    }
    return records;
  }

  async delete(name: string, _definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    // Redis's DEL cannot say whether the index exists: typed collections ask (their contract is collection_not_found).
    if (!this.storage.uncheckedDeletes) await this.mustExist(name);
    if (keys.length === 0) return;
    await this.call(name, (c) => c.del(keys.map((k) => this.hashKey(name, k))));
  }

  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    const attributes = attributeNames(definition);
    const filter = toRedisVectorQuery(query.filter, attributes);
    if (filter === MATCH_NOTHING || query.limit <= 0) return [];
    const vector = query.vectorProperty;
    const knn = `${filter === '*' ? '*' : `(${filter})`}=>[KNN $k @${attributes.get(vector.storageName)!} $vec AS ${SCORE_ALIAS}]`;
    let reply: SearchReply;
    try {
      await this.connection.ready();
      reply = (await this.connection.binary.ft.search(this.indexName(name), knn, {
        PARAMS: { k: query.limit, vec: toFloat32Blob(query.vector) },
        RETURN: [...this.storedFields(definition, query.includeVectors), SCORE_ALIAS],
        SORTBY: { BY: SCORE_ALIAS, DIRECTION: 'ASC' },
        LIMIT: { from: 0, size: query.limit },
        DIALECT: 2,
      })) as unknown as SearchReply;
    } catch (error) {
      if (isMissingIndex(error)) return [];
      throw translateRedisError(error, name);
    }
    const results: Array<[StorageRecord, number]> = [];
    for (const { id, value } of reply.documents) {
      const reported = replyNumber(value[SCORE_ALIAS]);
      if (reported === undefined) continue;
      const key = keyOfHashKey(definition, this.keyPrefix(name), String(id));
      results.push([
        fromVectorHash(definition, key, value, query.includeVectors, this.plain),
        scoreFromRedisDistance(vector.distance, reported),
      ]);
    }
    return results;
  }

  /** Every page of {@link queryPages}, collected. */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    const records: StorageRecord[] = [];
    for await (const page of this.queryPages(name, definition, query)) records.push(...page);
    return records;
  }

  /**
   * Records matching the filter in the given order, a page at a time: the keys of every matching
   * hash are read through an aggregation cursor (`FT.AGGREGATE … LOAD 1 @key WITHCURSOR`, as
   * `RedisMemoryDb` lists; it returns them in no order, so they are held whole: keys only), the
   * fields of the order read (HMGET, a page of keys at a time) and sorted here (`recordOrder`:
   * missing values last, ties by key), then the first `limit` records read {@link PAGE} at a time,
   * each page yielded before the next is read. Proportional to the number of matching records,
   * not to `limit`.
   */
  async *queryPages(name: string, definition: RecordDefinition, query: DriverRecordQuery): AsyncGenerator<StorageRecord[]> {
    const filter = toRedisVectorQuery(query.filter, attributeNames(definition));
    if (filter === MATCH_NOTHING || query.limit <= 0) return;
    const keys = await this.matchingKeys(name, definition, filter);
    if (keys.length === 0) return;
    const order = recordOrder(definition.key.storageName, query.orderBy);
    const sortFields = [...new Set(query.orderBy.map((o) => o.storageName).filter((f) => f !== definition.key.storageName))];
    let wanted = keys;
    if (sortFields.length > 0) {
      const sortable = definition.data.filter((d) => sortFields.includes(d.storageName));
      const partial = { ...definition, data: sortable, vectors: [] };
      const rows = await this.get(name, partial, keys, false);
      wanted = rows.sort(order).map((r) => r[definition.key.storageName] as KeyValue);
    } else {
      wanted = [...keys].sort((a, b) => order({ [definition.key.storageName]: a }, { [definition.key.storageName]: b }));
    }
    const top = wanted.slice(0, query.limit);
    for (let start = 0; start < top.length; start += PAGE) {
      const records = await this.get(name, definition, top.slice(start, start + PAGE), query.includeVectors);
      // Deleted since they matched: left out; the rest in the order found.
      if (records.length > 0) yield records.sort(order);
    }
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** The search index of a collection. */
  indexName(name: string): string {
    return `${this.collectionPrefix}${name}`;
  }

  /** The key prefix of a collection's hashes (its search index's PREFIX). */
  keyPrefix(name: string): string {
    return `${this.indexName(name)}:`;
  }

  /** The hash of a record. */
  hashKey(name: string, key: KeyValue): string {
    return `${this.keyPrefix(name)}${keyText(key)}`;
  }

  /** Hash fields read back: the key, the data, the vectors when wanted. */
  private storedFields(definition: RecordDefinition, includeVectors: boolean): string[] {
    return [
      definition.key.storageName,
      ...definition.data.map((d) => d.storageName),
      ...(includeVectors ? definition.vectors.map((v) => v.storageName) : []),
    ];
  }

  /** The keys of the hashes matching a query, read through an aggregation cursor (no result window to outgrow); none when the index is missing. */
  private async matchingKeys(name: string, definition: RecordDefinition, filter: string): Promise<KeyValue[]> {
    const index = this.indexName(name);
    const field = definition.key.storageName;
    const keys: KeyValue[] = [];
    let page: CursorReply;
    try {
      await this.connection.ready();
      page = (await this.connection.client.ft.aggregateWithCursor(index, filter, {
        LOAD: `@${field}`,
        COUNT: PAGE,
        DIALECT: 2,
      })) as CursorReply;
      for (;;) {
        for (const row of page.results) {
          const stored = replyFields(row).get(field);
          if (stored === undefined || stored === null) continue;
          keys.push(
            definition.key.type === 'integer'
              ? Number(String(stored))
              : this.plain.plainKey
                ? String(stored)
                : decodeTagValue(String(stored)),
          );
        }
        const cursor = page.cursor;
        if (!cursor || String(cursor) === '0') return keys;
        page = (await this.connection.client.ft.cursorRead(index, cursor, { COUNT: PAGE })) as CursorReply;
      }
    } catch (error) {
      if (isMissingIndex(error)) return [];
      throw translateRedisError(error, name);
    }
  }

  /** FT.INFO's attributes of a collection's index, or undefined when it does not exist. */
  private async info(name: string): Promise<Array<Map<string, unknown>> | undefined> {
    try {
      await this.connection.ready();
      const info = await this.connection.client.sendCommand(['FT.INFO', this.indexName(name)]);
      return replyList(replyFields(info).get('attributes')).map(replyFields);
    } catch (error) {
      if (isMissingIndex(error)) return undefined;
      throw translateRedisError(error, name);
    }
  }

  private async mustExist(name: string): Promise<void> {
    if ((await this.info(name)) === undefined) {
      throw new KmError('collection_not_found', `collection "${name}" does not exist (no search index "${this.indexName(name)}")`, {
        connector: CONNECTOR,
      });
    }
  }

  private checkAttributes(name: string, definition: RecordDefinition, attributes: Array<Map<string, unknown>> | undefined): void {
    const present = new Set((attributes ?? []).map((a) => String(a.get('attribute') ?? a.get('identifier'))));
    const names = attributeNames(definition);
    const wanted = [...definition.data.filter((d) => indexKind(d) !== undefined), ...definition.vectors];
    const missing = wanted.find((p) => !present.has(names.get(p.storageName)!));
    if (missing) {
      throw new InvalidInputError(
        'invalid_argument',
        `search index "${this.indexName(name)}" has no attribute "${names.get(missing.storageName)}" for property "${missing.name}"`,
        { connector: CONNECTOR },
      );
    }
  }

  /** Runs a command once the connection is ready, turning node-redis errors into km errors. */
  private async call<T>(name: string, command: (client: RedisConnection['client']) => Promise<T>, binary = false): Promise<T> {
    try {
      await this.connection.ready();
      return await command(binary ? this.connection.binary : this.connection.client);
    } catch (error) {
      throw translateRedisError(error, name);
    }
  }
}
