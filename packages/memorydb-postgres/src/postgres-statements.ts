import { quoteIdent, secondaryIndexName } from './identifiers.js';
import type { PostgresColumns } from './postgres-config.js';

/**
 * The SQL of one memory table, every identifier quoted; values always travel as parameters.
 * Pure text builders, unit-testable without a database.
 */
export class PostgresStatements {
  private readonly c: Record<keyof PostgresColumns, string>;

  constructor(
    readonly table: string,
    columns: PostgresColumns,
  ) {
    this.c = {
      id: quoteIdent(columns.id),
      embedding: quoteIdent(columns.embedding),
      tags: quoteIdent(columns.tags),
      payload: quoteIdent(columns.payload),
      content: quoteIdent(columns.content),
      textSearch: quoteIdent(columns.textSearch),
    };
  }

  /** The quoted tags column, for filter conditions. */
  get tagsColumn(): string {
    return this.c.tags;
  }

  createTable(vectorSize: number): string {
    const c = this.c;
    return `CREATE TABLE IF NOT EXISTS ${this.table} (
      ${c.id} TEXT PRIMARY KEY,
      ${c.embedding} vector(${vectorSize}) NOT NULL,
      ${c.tags} TEXT[] NOT NULL DEFAULT '{}',
      ${c.payload} JSONB NOT NULL DEFAULT '{}',
      ${c.content} TEXT NOT NULL DEFAULT '')`;
  }

  createTagIndex(): string {
    return `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(this.table, 'tags'))} ON ${this.table} USING GIN (${this.c.tags})`;
  }

  createVectorIndex(m: number, efConstruction: number): string {
    return `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(this.table, 'embedding'))} ON ${this.table}
      USING hnsw (${this.c.embedding} vector_cosine_ops) WITH (m = ${Math.floor(m)}, ef_construction = ${Math.floor(efConstruction)})`;
  }

  /**
   * Adds the full-text column, kept by PostgreSQL from the content with `config` (a name read
   * back from `regconfig`, spliced as a quoted literal: DDL takes no parameters, and a generated
   * column's expression must be a constant).
   */
  addTextSearchColumn(config: string): string {
    return `ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS ${this.c.textSearch} tsvector
      GENERATED ALWAYS AS (to_tsvector('${config.replace(/'/g, "''")}'::regconfig, ${this.c.content})) STORED`;
  }

  createTextSearchIndex(): string {
    return `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(this.table, 'text'))} ON ${this.table} USING GIN (${this.c.textSearch})`;
  }

  /**
   * Rows whose full-text column holds any word of the text $2 under configuration $1, best first
   * (ties in id order), at most $3, under `where` (its parameters from $5); $4 is the table's
   * name, for its row estimate. BM25-like: each lexeme of the text (quoted as a tsquery literal,
   * never parsed as an operator) weighs its `ts_rank_cd` in the row (divided by 1 + log(length),
   * flag 1) by its inverse document frequency ln(1 + (N − df + 0.5) / (df + 0.5)), N the rows
   * (counted, or PostgreSQL's estimate past 10,000 rows) and df the rows holding it (counted on
   * the GIN index); the sum s becomes s / (s + 1), in [0, 1). A text without lexemes matches nothing.
   */
  lexicalSearch(where: string, withEmbeddings: boolean): string {
    const tsv = this.c.textSearch;
    const quoted = `chr(39) || replace(replace(l, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39)`;
    return `WITH km_terms AS (
        SELECT DISTINCT ${quoted} AS literal FROM unnest(tsvector_to_array(to_tsvector($1::regconfig, $2::text))) AS l),
      km_n AS (
        SELECT CASE WHEN c.reltuples >= 10000 THEN c.reltuples::float8 ELSE (SELECT count(*) FROM ${this.table})::float8 END AS n
        FROM pg_class c WHERE c.oid = $4::regclass),
      km_idf AS (
        SELECT t.literal::tsquery AS term, ln(1 + (GREATEST(km_n.n, d.df) - d.df + 0.5) / (d.df + 0.5)) AS idf
        FROM km_terms t CROSS JOIN km_n
        CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM ${this.table} WHERE ${tsv} @@ t.literal::tsquery) AS d
        WHERE d.df > 0),
      km_q AS (SELECT string_agg(i.term::text, ' | ')::tsquery AS km_query FROM km_idf i)
      SELECT ${this.columns(withEmbeddings)}, s.km_score / (s.km_score + 1) AS relevance
      FROM ${this.table} AS km_t CROSS JOIN km_q
      CROSS JOIN LATERAL (SELECT sum(i.idf * ts_rank_cd(km_t.${tsv}, i.term, 1)) AS km_score FROM km_idf i WHERE km_t.${tsv} @@ i.term) AS s
      WHERE km_t.${tsv} @@ km_q.km_query AND ${where}
      ORDER BY relevance DESC, ${this.c.id} COLLATE "C" LIMIT $3`;
  }

  /** Upserts rows given as five parallel arrays ($1 ids, $2 vectors, $3 tag lists as JSON, $4 payloads, $5 texts). */
  upsert(): string {
    const c = this.c;
    return `INSERT INTO ${this.table} (${c.id}, ${c.embedding}, ${c.tags}, ${c.payload}, ${c.content})
      SELECT r.id, r.embedding::vector, ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.payload, r.content
      FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[], $5::text[]) AS r(id, embedding, tags, payload, content)
      ON CONFLICT (${c.id}) DO UPDATE SET
        ${c.embedding} = EXCLUDED.${c.embedding}, ${c.tags} = EXCLUDED.${c.tags},
        ${c.payload} = EXCLUDED.${c.payload}, ${c.content} = EXCLUDED.${c.content}`;
  }

  /** Nearest rows to $1 with relevance >= $2, at most $3, under `where` (its parameters from $4). */
  search(where: string, withEmbeddings: boolean): string {
    const distance = `${this.c.embedding} <=> $1::vector`;
    return `SELECT ${this.columns(withEmbeddings)}, 1 - (${distance}) AS relevance FROM ${this.table}
      WHERE ${where} AND 1 - (${distance}) >= $2 ORDER BY ${distance} LIMIT $3`;
  }

  /** Rows under `where` in id order (byte order, as km compares ids), at most `limit`. */
  list(where: string, withEmbeddings: boolean, limit: number | undefined): string {
    const cap = limit === undefined ? '' : ` LIMIT ${Math.floor(limit)}`;
    return `SELECT ${this.columns(withEmbeddings)} FROM ${this.table} WHERE ${where} ORDER BY ${this.c.id} COLLATE "C"${cap}`;
  }

  delete(): string {
    return `DELETE FROM ${this.table} WHERE ${this.c.id} = $1`;
  }

  drop(): string {
    return `DROP TABLE IF EXISTS ${this.table}`;
  }

  private columns(withEmbeddings: boolean): string {
    const c = this.c;
    const base = `${c.id} AS id, ${c.tags} AS tags, ${c.payload} AS payload`;
    return withEmbeddings ? `${base}, ${c.embedding}::text AS embedding` : base;
  }
}
