import { qualified, quoteIdent } from '../identifiers.js';

/** Files deleted per statement when a document or an index goes. */
export const DELETE_BATCH_FILES = 200;

const KEY = 'index_name = $1 AND document_id = $2 AND name = $3';

/**
 * The SQL of the content storage. `{prefix}files` holds one row per file (its size, chunk size
 * and version); `{prefix}file_chunks` its bytes, keyed by the file, the version that wrote them
 * and their sequence number; `{prefix}file_versions` numbers every write.
 */
export class ContentStatements {
  readonly files: string;
  readonly chunks: string;
  /** The sequence, as text for `$1::regclass`. */
  readonly versions: string;
  /** The index of document ids in byte order (unqualified: an index lives in its table's schema). */
  readonly documentIds: string;

  constructor(schema: string, prefix: string) {
    this.files = qualified(schema, `${prefix}files`);
    this.documentIds = quoteIdent(`${prefix}files_doc_ids`);
    this.chunks = qualified(schema, `${prefix}file_chunks`);
    this.versions = qualified(schema, `${prefix}file_versions`);
  }

  /** Run once under the setup lock; every statement is idempotent. */
  setup(): string[] {
    return [
      `CREATE SEQUENCE IF NOT EXISTS ${this.versions}`,
      `CREATE TABLE IF NOT EXISTS ${this.files} (
        index_name TEXT NOT NULL,
        document_id TEXT NOT NULL,
        name TEXT NOT NULL,
        size BIGINT NOT NULL,
        chunk_size INT NOT NULL,
        version BIGINT NOT NULL,
        updated TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (index_name, document_id, name))`,
      `CREATE TABLE IF NOT EXISTS ${this.chunks} (
        index_name TEXT NOT NULL,
        document_id TEXT NOT NULL,
        name TEXT NOT NULL,
        version BIGINT NOT NULL,
        seq INT NOT NULL,
        bytes BYTEA NOT NULL,
        PRIMARY KEY (index_name, document_id, name, version, seq))`,
      // Out of line and uncompressed: files are often compressed already, and substring() of a
      // range then reads only the TOAST slices it needs.
      `ALTER TABLE ${this.chunks} ALTER COLUMN bytes SET STORAGE EXTERNAL`,
      // Document ids in byte order, whatever the database's collation: pages of an index's
      // documents ({@link listDocumentsAfter}) are read from it alone.
      `CREATE INDEX IF NOT EXISTS ${this.documentIds} ON ${this.files} (index_name, document_id COLLATE "C")`,
    ];
  }

  readonly nextVersion = 'SELECT nextval($1::regclass)::text AS version';

  insertChunk(): string {
    return `INSERT INTO ${this.chunks} (index_name, document_id, name, version, seq, bytes) VALUES ($1, $2, $3, $4, $5, $6)`;
  }

  /** Creates or replaces the file row: $4 size, $5 chunk size, $6 version. */
  upsertFile(): string {
    return `INSERT INTO ${this.files} (index_name, document_id, name, size, chunk_size, version, updated)
      VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp())
      ON CONFLICT (index_name, document_id, name) DO UPDATE
      SET size = EXCLUDED.size, chunk_size = EXCLUDED.chunk_size, version = EXCLUDED.version, updated = EXCLUDED.updated`;
  }

  /** Creates the file row only when there is none; no row back when there was. */
  insertFileIfMissing(): string {
    return `INSERT INTO ${this.files} (index_name, document_id, name, size, chunk_size, version, updated)
      VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp())
      ON CONFLICT (index_name, document_id, name) DO NOTHING RETURNING 1 AS ok`;
  }

  /** Replaces the file row only when its version is still $7; no row back otherwise. */
  updateFileIfVersion(): string {
    return `UPDATE ${this.files} SET size = $4, chunk_size = $5, version = $6, updated = clock_timestamp()
      WHERE ${KEY} AND version = $7 RETURNING 1 AS ok`;
  }

  /** Drops the chunks of every version but $4 (the one just written). */
  deleteOtherChunks(): string {
    return `DELETE FROM ${this.chunks} WHERE ${KEY} AND version <> $4`;
  }

  fileInfo(): string {
    return `SELECT version::text AS version, size::text AS size, chunk_size FROM ${this.files} WHERE ${KEY}`;
  }

  /** A whole file and its version in one statement (one snapshot); one row with null bytes for an empty file. */
  wholeFile(): string {
    return `SELECT f.version::text AS version, f.size::text AS size, c.bytes
      FROM ${this.files} f LEFT JOIN ${this.chunks} c
        ON c.index_name = f.index_name AND c.document_id = f.document_id AND c.name = f.name AND c.version = f.version
      WHERE f.index_name = $1 AND f.document_id = $2 AND f.name = $3 ORDER BY c.seq`;
  }

  /** Bytes of chunk $5 of version $4 from position $6 (1-based), $7 of them. */
  chunkSlice(): string {
    return `SELECT substring(bytes FROM $6 FOR $7) AS bytes FROM ${this.chunks} WHERE ${KEY} AND version = $4 AND seq = $5`;
  }

  fileExists(): string {
    return `SELECT 1 AS ok FROM ${this.files} WHERE ${KEY}`;
  }

  deleteFile(): string[] {
    return [`DELETE FROM ${this.files} WHERE ${KEY}`, `DELETE FROM ${this.chunks} WHERE ${KEY}`];
  }

  /**
   * Deletes up to $2 files of index $1 (of document $3 when given); returns the keys that went.
   * Their chunks go in a second statement ({@link deleteChunksOf}): this one may wait for a
   * concurrent writer's row lock and then delete its new row, whose chunks its own snapshot
   * cannot see.
   */
  deleteFilesBatch(byDocument: boolean): string {
    const where = byDocument ? 'index_name = $1 AND document_id = $3' : 'index_name = $1';
    return `DELETE FROM ${this.files} WHERE (index_name, document_id, name) IN (
        SELECT index_name, document_id, name FROM ${this.files} WHERE ${where} LIMIT $2)
      RETURNING document_id, name`;
  }

  /** Deletes every chunk of the files of index $1 named by the pairs of $2 (document ids) and $3 (names). */
  deleteChunksOf(): string {
    return `DELETE FROM ${this.chunks} WHERE index_name = $1
      AND (document_id, name) IN (SELECT * FROM unnest($2::text[], $3::text[]))`;
  }

  listFiles(): string {
    return `SELECT name, size::text AS size, updated FROM ${this.files}
      WHERE index_name = $1 AND document_id = $2 ORDER BY name COLLATE "C"`;
  }

  listDocuments(): string {
    return `SELECT DISTINCT document_id COLLATE "C" AS document_id FROM ${this.files} WHERE index_name = $1 ORDER BY 1`;
  }

  /**
   * At most $3 document ids of index $1 sorting after $2 in byte order ('' for the first page):
   * a range of the {@link documentIds} index, read only as far as the page goes (files of a
   * document are adjacent in it); no chunk is read.
   */
  listDocumentsAfter(): string {
    return `SELECT DISTINCT document_id COLLATE "C" AS document_id FROM ${this.files}
      WHERE index_name = $1 AND document_id COLLATE "C" > $2 ORDER BY 1 LIMIT $3`;
  }

  listIndexes(): string {
    return `SELECT DISTINCT index_name COLLATE "C" AS index_name FROM ${this.files} ORDER BY 1`;
  }
}
