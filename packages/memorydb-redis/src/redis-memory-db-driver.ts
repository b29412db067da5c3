import { KmError, type MemoryRecord } from '@km/core';
import { compareRecordIds, indexNamesUnderPrefix } from '@km/core/connector';
import type { CheckedRecord, DriverList, DriverSearch, MemoryDbDriver } from '@km/core/connector';
import { resolveRedisOptions, type RedisMemoryDbOptions, type ResolvedRedisOptions } from './redis-config.js';
import { RedisConnection } from './redis-connection.js';
import { isMissingIndex, translateRedisError } from './redis-errors.js';
import { knnQuery, toRedisQuery } from './redis-filters.js';
import { Fields, FIELDS_WITHOUT_VECTOR, toHash, toRecord, type FieldValue } from './redis-records.js';
import { createIndexCommand } from './redis-schema.js';
import { relevanceFromDistance } from './relevance.js';
import { replyFields, replyList, replyNumber } from './reply-fields.js';
import { toFloat32Blob } from './vector-blob.js';

const CONNECTOR = 'redis';
/** Ids per FT.CURSOR READ, and records per round of HMGETs. */
const PAGE = 1000;

/** The parts of an FT.SEARCH reply km reads (node-redis's transform, RESP2 or RESP3). */
interface SearchReply {
  documents: Array<{ value: Record<string, FieldValue> }>;
}

/** The parts of an FT.AGGREGATE WITHCURSOR / FT.CURSOR READ reply km reads. */
interface CursorReply {
  results: unknown[];
  cursor: number;
}

/**
 * The Redis Query Engine driver of {@link RedisMemoryDb}: one search index `{prefix}{index}`
 * per km index over the hashes `{prefix}{index}:{id}` (fields `id`, `tags`, `payload`,
 * `embedding`), `tags` a case-sensitive TAG field holding each tag in a reversible encoding,
 * `embedding` a FLOAT32 COSINE vector field (HNSW or FLAT). Similarity search is a KNN query
 * with the filter as a pre-filter; relevance is `1 - distance`. Writes are one MULTI per batch.
 */
export class RedisMemoryDbDriver implements MemoryDbDriver {
  readonly name = CONNECTOR;
  /** A zero vector has no cosine: RediSearch cannot normalise it. */
  readonly capabilities = { zeroVectors: false };
  readonly maxBatchSize: number;
  private readonly settings: ResolvedRedisOptions;
  private readonly connection: RedisConnection;

  constructor(options: RedisMemoryDbOptions) {
    this.settings = resolveRedisOptions(options);
    this.maxBatchSize = this.settings.batchSize;
    this.connection = new RedisConnection(options);
  }

  async vectorSize(index: string): Promise<number | undefined> {
    let info: unknown;
    try {
      await this.connection.ready();
      info = await this.connection.client.sendCommand(['FT.INFO', this.indexName(index)]);
    } catch (error) {
      if (isMissingIndex(error)) return undefined;
      throw translateRedisError(error, index);
    }
    const vector = replyList(replyFields(info).get('attributes'))
      .map(replyFields)
      .find((a) => String(a.get('attribute') ?? a.get('identifier')) === Fields.embedding);
    if (!vector) {
      throw new KmError(
        'invalid_argument',
        `search index "${this.indexName(index)}" has no "${Fields.embedding}" vector field: not a km index`,
        {
          connector: CONNECTOR,
        },
      );
    }
    // Recent servers report `dim` in FT.INFO; older ones (e.g. RediSearch 2.4-2.6) do not: read the size km kept at creation.
    const size = replyNumber(vector.get('dim')) ?? replyNumber(await this.call(index, (c) => c.get(this.sizeKey(index))));
    if (size === undefined) {
      throw new KmError('transient', `the vector size of search index "${this.indexName(index)}" is not known yet`, {
        connector: CONNECTOR,
        transient: true,
      });
    }
    return size;
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const command = createIndexCommand(this.indexName(index), this.keyPrefix(index), vectorSize, this.settings);
    // A concurrent creator may win: "Index already exists" is thrown and core reads what it made.
    await this.call(index, (c) => c.sendCommand(command));
    await this.call(index, (c) => c.set(this.sizeKey(index), String(vectorSize)));
  }

  async listIndexes(): Promise<string[]> {
    const names = await this.call('', (c) => c.sendCommand(['FT._LIST']));
    return indexNamesUnderPrefix(replyList(names).map(String), this.settings.indexPrefix);
  }

  async deleteIndex(index: string): Promise<void> {
    try {
      await this.call(index, (c) => c.sendCommand(['FT.DROPINDEX', this.indexName(index), 'DD']));
    } finally {
      // The size key is a cache: failing to remove it must not hide FT.DROPINDEX's error.
      await this.call(index, (c) => c.del(this.sizeKey(index))).catch(() => undefined);
    }
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    await this.call(index, (c) => {
      const multi = c.multi();
      for (const record of records) {
        const key = this.key(index, record.id);
        multi.del(key).hSet(key, toHash(record));
      }
      return multi.exec();
    });
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const fields = [...FIELDS_WITHOUT_VECTOR, ...(query.withEmbeddings ? [Fields.embedding] : []), 'distance'];
    const reply = (await this.call(
      index,
      (c) =>
        c.ft.search(this.indexName(index), knnQuery(toRedisQuery(query.filters)), {
          PARAMS: { k: query.limit, vec: toFloat32Blob(query.vector!) },
          RETURN: fields,
          LIMIT: { from: 0, size: query.limit },
          DIALECT: 2,
        }),
      true,
    )) as SearchReply;
    const results: Array<[MemoryRecord, number]> = [];
    for (const { value } of reply.documents) {
      const record = toRecord(value, query.withEmbeddings);
      const distance = replyNumber(value.distance);
      if (!record || distance === undefined) continue;
      const relevance = relevanceFromDistance(distance);
      if (relevance >= query.minRelevance) results.push([record, relevance]);
    }
    return results;
  }

  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const ids = (await this.matchingIds(index, toRedisQuery(query.filters))).sort(compareRecordIds);
    const wanted = query.limit === undefined ? ids : ids.slice(0, query.limit);
    const fields = query.withEmbeddings ? [...FIELDS_WITHOUT_VECTOR, Fields.embedding] : [...FIELDS_WITHOUT_VECTOR];
    for (let start = 0; start < wanted.length; start += PAGE) {
      const page = wanted.slice(start, start + PAGE);
      // Sent together, node-redis writes them as one pipeline.
      const rows = await this.call(index, (c) => Promise.all(page.map((id) => c.hmGet(this.key(index, id), fields))), true);
      for (const row of rows as FieldValue[][]) {
        const record = toRecord(Object.fromEntries(fields.map((f, i) => [f, row[i]])), query.withEmbeddings);
        if (record) yield record; // deleted since it matched
      }
    }
  }

  async delete(index: string, id: string): Promise<void> {
    await this.call(index, (c) => c.del(this.key(index, id)));
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** The search index of a normalised km index name. */
  indexName(index: string): string {
    return `${this.settings.indexPrefix}${index}`;
  }

  /** The key prefix of an index's records (the search index's PREFIX). */
  keyPrefix(index: string): string {
    return `${this.indexName(index)}:`;
  }

  /** The key of a record. */
  key(index: string, id: string): string {
    return `${this.keyPrefix(index)}${id}`;
  }

  /** Where the vector size is kept for servers whose FT.INFO does not report it (outside the index's key prefix). */
  sizeKey(index: string): string {
    return this.indexName(index);
  }

  /** The ids of the records matching a query, read through an aggregation cursor (no result window to outgrow). */
  private async matchingIds(index: string, query: string): Promise<string[]> {
    const name = this.indexName(index);
    const ids: string[] = [];
    let page = (await this.call(index, (c) =>
      c.ft.aggregateWithCursor(name, query, { LOAD: `@${Fields.id}`, COUNT: PAGE, DIALECT: 2 }),
    )) as CursorReply;
    for (;;) {
      for (const row of page.results) {
        const id = replyFields(row).get(Fields.id);
        if (id !== undefined && id !== null) ids.push(String(id));
      }
      const cursor = page.cursor;
      if (!cursor || String(cursor) === '0') return ids;
      page = (await this.call(index, (c) => c.ft.cursorRead(name, cursor, { COUNT: PAGE }))) as CursorReply;
    }
  }

  /** Runs a command once the connection is ready, turning node-redis errors into km errors. */
  private async call<T>(index: string, command: (client: RedisConnection['client']) => Promise<T>, binary = false): Promise<T> {
    try {
      await this.connection.ready();
      return await command(binary ? this.connection.binary : this.connection.client);
    } catch (error) {
      throw translateRedisError(error, index);
    }
  }
}
