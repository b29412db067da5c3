import type { Readable } from 'node:stream';
import { createConsoleLogger, InvalidInputError, KmError } from '@km/core';
import type { ByteRange, IContentStorage, StorageContent, StoredFileInfo } from '@km/core';
import { checkStorageNames, contentToReadable, writeConflict } from '@km/core/connector';
import { quoteIdent } from '../identifiers.js';
import { isUndefinedTable } from '../postgres-errors.js';
import type { SqlClient, SqlQueryable } from '../sql-client.js';
import { type ChunkSlice, rechunk, slicesOf, sliceStream, toAsync } from './chunks.js';
import { ContentConnection } from './content-connection.js';
import { fileNotFound, replacedWhileReading, tablesMissing, translateStorageError } from './content-errors.js';
import { ContentStatements, DELETE_BATCH_FILES } from './content-statements.js';
import {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_CONTENT_TABLE_PREFIX,
  type PostgresContentStorageOptions,
  serverOf,
} from './content-storage-options.js';

const CONNECTOR = 'postgres';
/** PostgreSQL's largest bytea value is 1 GB; chunks stay well below it. */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/**
 * Content storage in PostgreSQL tables, for deployments that already run PostgreSQL: one row
 * per file in `{prefix}files` and its bytes in `{prefix}file_chunks` (1 MiB bytea chunks by
 * default). A write streams its chunks inside one transaction, so readers see the old or the
 * new file, and a failed stream leaves nothing; reads stream chunk by chunk and a range fetches
 * only the chunks it covers; every write gets a new `version` for conditional writes.
 *
 * ```ts
 * const storage = new PostgresContentStorage({ connectionString: 'postgres://km:secret@db:5432/km' });
 * const memory = new KernelMemoryBuilder().withContentStorage(storage).build();
 * ```
 */
export class PostgresContentStorage implements IContentStorage {
  readonly supportsByteRanges: boolean = true;
  /** The server (no user or password) and the files table, for logs and errors. */
  readonly location: string;
  private readonly sql: ContentStatements;
  private readonly connection: ContentConnection;
  private readonly chunkBytes: number;

  constructor(options: PostgresContentStorageOptions) {
    if (!options.pool && !options.connectionString && !options.pglite) {
      throw new InvalidInputError('invalid_argument', 'give PostgresContentStorage a pool, a connectionString or a pglite instance', {
        connector: CONNECTOR,
      });
    }
    const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    if (!Number.isInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > MAX_CHUNK_BYTES) {
      throw new InvalidInputError('invalid_argument', `chunkBytes must be an integer from 1 to ${MAX_CHUNK_BYTES}, got ${chunkBytes}`, {
        connector: CONNECTOR,
      });
    }
    this.chunkBytes = chunkBytes;
    const schema = options.schema ?? 'public';
    const prefix = options.tablePrefix ?? DEFAULT_CONTENT_TABLE_PREFIX;
    quoteIdent(`${prefix}files_doc_ids`); // the longest name: refused now when PostgreSQL would cut it
    this.sql = new ContentStatements(schema, prefix);
    this.location = `${serverOf(options)}, table ${this.sql.files}`;
    this.connection = new ContentConnection(options, this.sql, options.logger ?? createConsoleLogger());
  }

  /** Folders are implicit (a document exists while it has files): only checks the name and the connection. */
  async createIndexDirectory(index: string): Promise<void> {
    checkStorageNames(index);
    await this.run(async () => undefined);
  }

  async deleteIndexDirectory(index: string): Promise<void> {
    checkStorageNames(index);
    await this.deleteInBatches(false, [index, DELETE_BATCH_FILES]);
  }

  /** Folders are implicit: only checks the names and the connection. */
  async createDocumentDirectory(index: string, documentId: string): Promise<void> {
    checkStorageNames(index, documentId);
    await this.run(async () => undefined);
  }

  async deleteDocumentDirectory(index: string, documentId: string): Promise<void> {
    checkStorageNames(index, documentId);
    await this.deleteInBatches(true, [index, DELETE_BATCH_FILES, documentId]);
  }

  async emptyDocumentDirectory(index: string, documentId: string): Promise<void> {
    await this.deleteDocumentDirectory(index, documentId);
  }

  async writeFile(index: string, documentId: string, fileName: string, content: StorageContent): Promise<number> {
    checkStorageNames(index, documentId, fileName);
    const key = [index, documentId, fileName];
    return this.run((client) =>
      client.transaction(async (tx) => {
        const version = await this.nextVersion(tx);
        const size = await this.writeChunks(tx, key, version, contentToReadable(content));
        await tx.query(this.sql.upsertFile(), [...key, size, this.chunkBytes, version]);
        await tx.query(this.sql.deleteOtherChunks(), [...key, version]);
        return size;
      }),
    );
  }

  async readFile(index: string, documentId: string, fileName: string): Promise<Buffer> {
    return (await this.readFileVersion(index, documentId, fileName)).data;
  }

  async readFileVersion(index: string, documentId: string, fileName: string): Promise<{ data: Buffer; version: string }> {
    checkStorageNames(index, documentId, fileName);
    const { rows } = await this.run((db) =>
      db.query<{ version: string; size: string; bytes: Uint8Array | null }>(this.sql.wholeFile(), [index, documentId, fileName]),
    );
    if (rows.length === 0) throw fileNotFound(index, documentId, fileName);
    const data = Buffer.concat(rows.flatMap((r) => (r.bytes ? [Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)] : [])));
    if (data.length !== Number(rows[0]!.size)) {
      throw new KmError(
        'storage_corrupt',
        `file "${fileName}" of document "${documentId}" in index "${index}" has ${data.length} of its ${rows[0]!.size} bytes`,
        {
          connector: CONNECTOR,
        },
      );
    }
    return { data, version: rows[0]!.version };
  }

  async writeFileIfVersion(
    index: string,
    documentId: string,
    fileName: string,
    content: Uint8Array | string,
    version: string | null,
  ): Promise<string> {
    checkStorageNames(index, documentId, fileName);
    const key = [index, documentId, fileName];
    const data = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    // A version this storage never gave out matches no row.
    if (version !== null && !/^\d{1,19}$/.test(version)) throw writeConflict(index, documentId, fileName, CONNECTOR);
    return this.run((client) =>
      client.transaction(async (tx) => {
        const next = await this.nextVersion(tx);
        // Claims the row first (an update waits for a concurrent one and then sees its new version).
        const claim =
          version === null
            ? await tx.query(this.sql.insertFileIfMissing(), [...key, data.length, this.chunkBytes, next])
            : await tx.query(this.sql.updateFileIfVersion(), [...key, data.length, this.chunkBytes, next, version]);
        if (claim.rows.length === 0) throw writeConflict(index, documentId, fileName, CONNECTOR);
        await this.writeChunks(tx, key, next, [data]);
        await tx.query(this.sql.deleteOtherChunks(), [...key, next]);
        return next;
      }),
    );
  }

  async readFileStream(index: string, documentId: string, fileName: string, range?: ByteRange): Promise<Readable> {
    checkStorageNames(index, documentId, fileName);
    if (range && (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start)) {
      throw new InvalidInputError('invalid_argument', `invalid byte range ${range.start}-${range.end}`, { connector: CONNECTOR });
    }
    const key = [index, documentId, fileName];
    const { rows } = await this.run((db) => db.query<{ version: string; size: string; chunk_size: number }>(this.sql.fileInfo(), key));
    const file = rows[0];
    if (!file) throw fileNotFound(index, documentId, fileName);
    const size = Number(file.size);
    const start = range?.start ?? 0;
    const end = Math.min(range?.end ?? size - 1, size - 1);
    const slices = start > end ? [] : slicesOf(start, end, Number(file.chunk_size));
    return sliceStream(slices, (slice) => this.readSlice(key, file.version, slice));
  }

  async fileExists(index: string, documentId: string, fileName: string): Promise<boolean> {
    checkStorageNames(index, documentId, fileName);
    const { rows } = await this.run((db) => db.query(this.sql.fileExists(), [index, documentId, fileName]));
    return rows.length > 0;
  }

  async deleteFile(index: string, documentId: string, fileName: string): Promise<void> {
    checkStorageNames(index, documentId, fileName);
    await this.run((client) =>
      client.transaction(async (tx) => {
        for (const statement of this.sql.deleteFile()) await tx.query(statement, [index, documentId, fileName]);
      }),
    );
  }

  async listFiles(index: string, documentId: string): Promise<StoredFileInfo[]> {
    checkStorageNames(index, documentId);
    const { rows } = await this.run((db) =>
      db.query<{ name: string; size: string; updated: Date | string }>(this.sql.listFiles(), [index, documentId]),
    );
    return rows.map((r) => ({ name: r.name, size: Number(r.size), lastModified: new Date(r.updated) }));
  }

  async listDocuments(index: string): Promise<string[]> {
    checkStorageNames(index);
    const { rows } = await this.run((db) => db.query<{ document_id: string }>(this.sql.listDocuments(), [index]));
    return rows.map((r) => r.document_id);
  }

  /**
   * A page of an index's document ids: at most `limit` sorting after `after` (from the first
   * when undefined), in byte order; empty when the index has no files. Reads the files table's
   * index of document ids only as far as the page goes, never the chunks.
   */
  async listDocumentsAfter(index: string, after: string | undefined, limit: number): Promise<string[]> {
    checkStorageNames(index);
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new InvalidInputError('invalid_argument', `limit must be a whole number of documents, got ${String(limit)}`, {
        connector: CONNECTOR,
      });
    }
    if (after !== undefined && typeof after !== 'string') {
      throw new InvalidInputError('invalid_argument', 'after must be a document id or undefined', { connector: CONNECTOR });
    }
    if (limit === 0) return [];
    const { rows } = await this.run((db) => db.query<{ document_id: string }>(this.sql.listDocumentsAfter(), [index, after ?? '', limit]));
    return rows.map((r) => r.document_id);
  }

  async listIndexes(): Promise<string[]> {
    const { rows } = await this.run((db) => db.query<{ index_name: string }>(this.sql.listIndexes()));
    return rows.map((r) => r.index_name);
  }

  /** Ends the pool made from `connectionString`; a pool or PGlite given in is left open. */
  async close(): Promise<void> {
    await this.connection.close();
  }

  private async nextVersion(tx: SqlQueryable): Promise<string> {
    const { rows } = await tx.query<{ version: string }>(this.sql.nextVersion, [this.sql.versions]);
    return rows[0]!.version;
  }

  /** Inserts the content as chunks of `chunkBytes` under `version`; returns its size. */
  private async writeChunks(
    tx: SqlQueryable,
    key: string[],
    version: string,
    content: AsyncIterable<Uint8Array | string> | Iterable<Buffer>,
  ): Promise<number> {
    let seq = 0;
    let size = 0;
    const source = Symbol.asyncIterator in content ? content : toAsync(content);
    for await (const chunk of rechunk(source, this.chunkBytes)) {
      await tx.query(this.sql.insertChunk(), [...key, version, seq++, chunk]);
      size += chunk.length;
    }
    return size;
  }

  private async readSlice(key: string[], version: string, slice: ChunkSlice): Promise<Buffer> {
    const { rows } = await this.run((db) =>
      db.query<{ bytes: Uint8Array }>(this.sql.chunkSlice(), [...key, version, slice.seq, slice.offset + 1, slice.length]),
    );
    const bytes = rows[0]?.bytes;
    if (!bytes || bytes.byteLength !== slice.length) throw replacedWhileReading(key[0]!, key[1]!, key[2]!);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /**
   * Deletes files a batch per transaction until a batch finds none (a concurrent deleter can
   * cut a batch short while files remain). Each batch deletes the file rows, then, in a second
   * statement with a newer snapshot, every chunk of those files: also the chunks of a write
   * that committed while the first statement waited for its row lock.
   */
  private async deleteInBatches(byDocument: boolean, params: [string, number, ...string[]]): Promise<void> {
    for (;;) {
      const deleted = await this.run((client) =>
        client.transaction(async (tx) => {
          const { rows } = await tx.query<{ document_id: string; name: string }>(this.sql.deleteFilesBatch(byDocument), params);
          if (rows.length > 0) {
            await tx.query(this.sql.deleteChunksOf(), [params[0], rows.map((r) => r.document_id), rows.map((r) => r.name)]);
          }
          return rows.length;
        }),
      );
      if (deleted === 0) return;
    }
  }

  /** Runs `fn` on the connection; errors come back as km errors, and missing tables are created again on the next call. */
  private async run<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    try {
      return await fn(await this.connection.client());
    } catch (error) {
      if (isUndefinedTable(error)) {
        this.connection.forgetTables();
        throw tablesMissing(error);
      }
      throw translateStorageError(error);
    }
  }
}
