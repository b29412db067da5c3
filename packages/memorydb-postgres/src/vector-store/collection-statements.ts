import { type DistanceFunction, InvalidInputError, type RecordDefinition } from '@km/core';
import type { ResolvedDataProperty, ResolvedVectorProperty } from '@km/core/connector';
import type { FullTextTable } from '../full-text.js';
import { qualified, quoteIdent, secondaryIndexName } from '../identifiers.js';
import { quoteColumn } from './column-names.js';
import { DATA_COLUMN_TYPES, KEY_COLUMN_TYPES, vectorColumnType } from './column-types.js';
import { dataAlias, keyAlias, scoreAlias, vectorAlias } from './storage-rows.js';

/** pgvector's operator of each distance (smaller is closer for all three) and its HNSW operator class. */
const DISTANCE_SQL: Readonly<Record<DistanceFunction, { operator: string; opclass: string }>> = {
  cosine: { operator: '<=>', opclass: 'vector_cosine_ops' },
  dot: { operator: '<#>', opclass: 'vector_ip_ops' },
  euclidean: { operator: '<->', opclass: 'vector_l2_ops' },
};

/** pgvector's HNSW index takes vectors of at most 2000 dimensions. */
export const HNSW_MAX_DIMENSIONS = 2000;

/**
 * The SQL of one collection's table, every identifier quoted (columns by storage name, checked
 * by {@link quoteColumn}); values always travel as parameters. Pure text builders, testable
 * without a database. Selected columns are aliased (`k`, `d0…`, `v0…`, `s`), so no storage
 * name can collide with the score or with another column.
 */
export class CollectionStatements {
  /** `"schema"."collection"`. */
  readonly table: string;
  /** The quoted key column. */
  readonly key: string;
  private readonly data: string[];
  private readonly vectors: string[];

  constructor(
    schema: string,
    readonly collection: string,
    readonly definition: RecordDefinition,
    /** SQL types of new columns by storage name (see `PostgresVectorStoreOptions.columnTypes`). */
    private readonly columnTypes: Readonly<Record<string, string>> = {},
  ) {
    this.table = qualified(schema, collection);
    this.key = quoteColumn(definition.key);
    this.data = definition.data.map(quoteColumn);
    this.vectors = definition.vectors.map(quoteColumn);
  }

  /** The table of a new collection: key PRIMARY KEY, data and vector columns nullable. */
  createTable(): string {
    const d = this.definition;
    const columns = [
      `${this.key} ${KEY_COLUMN_TYPES[d.key.type].ddl} PRIMARY KEY`,
      ...d.data.map((p, i) => `${this.data[i]} ${this.dataColumnType(p)}`),
      ...d.vectors.map((p, i) => `${this.vectors[i]} ${vectorColumnType(p.dimensions)}`),
    ];
    return `CREATE TABLE IF NOT EXISTS ${this.table} (${columns.join(', ')})`;
  }

  /** The SQL type of a new data column: the option's, when it holds the property's values, else the type's default. */
  private dataColumnType(property: ResolvedDataProperty): string {
    const type = DATA_COLUMN_TYPES[property.type];
    const chosen = this.columnTypes[property.storageName];
    if (chosen === undefined) return type.ddl;
    if (!type.accepts.includes(chosen)) {
      throw new InvalidInputError(
        'invalid_argument',
        `columnTypes: column "${property.storageName}" cannot be ${chosen}; property "${property.name}" (${property.type}) needs one of ${type.accepts.join(', ')}`,
        { connector: 'postgres' },
      );
    }
    return chosen;
  }

  /** An HNSW index per vector of at most {@link HNSW_MAX_DIMENSIONS}, with the operator class of its distance. */
  createVectorIndexes(m: number, efConstruction: number): string[] {
    return this.definition.vectors.flatMap((p, i) =>
      p.dimensions > HNSW_MAX_DIMENSIONS
        ? []
        : [
            `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(this.table, 'hnsw', p.storageName))} ON ${this.table}
              USING hnsw (${this.vectors[i]} ${DISTANCE_SQL[p.distance].opclass})
              WITH (m = ${Math.floor(m)}, ef_construction = ${Math.floor(efConstruction)})`,
          ],
    );
  }

  /** A GIN index per filterable array column, so `contains` (`@>`) filters can use it. */
  createArrayIndexes(): string[] {
    return this.definition.data.flatMap((p, i) =>
      p.filterable && p.type.endsWith('[]')
        ? [
            `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(this.table, 'gin', p.storageName))} ON ${this.table} USING GIN (${this.data[i]})`,
          ]
        : [],
    );
  }

  /** The full-text column of a `fullText` property, named by `columnOf` (its storage name → the tsvector column). */
  fullTextTable(property: ResolvedDataProperty, columnOf: (storageName: string) => string): FullTextTable {
    return { table: this.table, source: property.storageName, column: columnOf(property.storageName) };
  }

  /** Parameters per record in {@link upsert}: one per column. */
  get columnsPerRecord(): number {
    return 1 + this.data.length + this.vectors.length;
  }

  /** Inserts `records` records (their parameters in column order, record after record), replacing those whose key exists. */
  upsert(records: number): string {
    const columns = [this.key, ...this.data, ...this.vectors];
    const rows: string[] = [];
    for (let r = 0; r < records; r++) {
      rows.push(`(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
    }
    const others = columns.slice(1);
    const onConflict = others.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${others.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
    return `INSERT INTO ${this.table} (${columns.join(', ')}) VALUES ${rows.join(', ')} ON CONFLICT (${this.key}) ${onConflict}`;
  }

  /** Rows whose key is in the array $1. */
  get(includeVectors: boolean): string {
    return `SELECT ${this.selectList(includeVectors)} FROM ${this.table} WHERE ${this.key} = ANY($1)`;
  }

  /** Deletes the rows whose key is in the array $1. */
  delete(): string {
    return `DELETE FROM ${this.table} WHERE ${this.key} = ANY($1)`;
  }

  /**
   * The rows nearest to the vector $1 on `vector` that hold it, under `where` (its parameters
   * from $3), at most $2, ordered by pgvector's distance operator alone (so HNSW can serve it),
   * with the score in the distance's convention: cosine `1 - (v <=> q)`, dot `-(v <#> q)`,
   * euclidean `v <-> q`.
   */
  search(vector: ResolvedVectorProperty, where: string, includeVectors: boolean): string {
    const column = this.vectors[this.definition.vectors.indexOf(vector)] ?? quoteColumn(vector);
    const distance = `${column} ${DISTANCE_SQL[vector.distance].operator} $1::vector`;
    const score = vector.distance === 'cosine' ? `1 - (${distance})` : vector.distance === 'dot' ? `-(${distance})` : distance;
    return `SELECT ${this.selectList(includeVectors)}, ${score} AS ${scoreAlias} FROM ${this.table}
      WHERE ${column} IS NOT NULL AND ${where} ORDER BY ${distance} LIMIT $2`;
  }

  /**
   * Rows under `where` (its parameters from $2) in the given order, missing values last, ties by
   * key ascending, at most $1. Text sorts by code point (`COLLATE "C"`); the driver re-sorts the rare rows where that differs from km's UTF-16 order.
   */
  query(where: string, orderBy: ReadonlyArray<{ storageName: string; descending: boolean }>, includeVectors: boolean): string {
    const d = this.definition;
    const keys = orderBy.map(({ storageName, descending }) => {
      const i = d.data.findIndex((p) => p.storageName === storageName);
      const isKey = i < 0;
      const column = isKey ? this.key : this.data[i]!;
      const text = isKey ? d.key.type === 'string' : d.data[i]!.type === 'string';
      return `${column}${text ? ' COLLATE "C"' : ''} ${descending ? 'DESC' : 'ASC'} NULLS LAST`;
    });
    keys.push(`${this.key}${d.key.type === 'string' ? ' COLLATE "C"' : ''} ASC`);
    return `SELECT ${this.selectList(includeVectors)} FROM ${this.table} WHERE ${where} ORDER BY ${keys.join(', ')} LIMIT $1`;
  }

  drop(): string {
    return `DROP TABLE IF EXISTS ${this.table}`;
  }

  /**
   * Rows whose full-text column `tsvector` holds any word of the text $2 under configuration $1,
   * best first (ties in key order), at most $3, under `where` (its parameters from $5); $4 is the
   * table's name, for its row estimate. BM25-like: each lexeme of the text (quoted as a tsquery
   * literal, never parsed as an operator) weighs its `ts_rank_cd` in the row (divided by
   * 1 + log(length), flag 1) by its inverse document frequency ln(1 + (N − df + 0.5) / (df + 0.5)),
   * N the rows (counted, or PostgreSQL's estimate past 10,000 rows) and df the rows holding it
   * (counted on the GIN index); the sum s becomes s / (s + 1), in [0, 1). A text without lexemes
   * matches nothing. The weights are fitted (see the README's relevance section): keep them.
   */
  lexicalSearch(tsvector: string, where: string, includeVectors: boolean): string {
    const tsv = quoteIdent(tsvector);
    const quoted = `chr(39) || replace(replace(l, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39)`;
    const key = `${this.key}${this.definition.key.type === 'string' ? ' COLLATE "C"' : ''}`;
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
      SELECT ${this.selectList(includeVectors)}, km_s.km_score / (km_s.km_score + 1) AS ${scoreAlias}
      FROM ${this.table} AS km_t CROSS JOIN km_q
      CROSS JOIN LATERAL (SELECT sum(i.idf * ts_rank_cd(km_t.${tsv}, i.term, 1)) AS km_score FROM km_idf i WHERE km_t.${tsv} @@ i.term) AS km_s
      WHERE km_t.${tsv} @@ km_q.km_query AND ${where}
      ORDER BY ${scoreAlias} DESC, ${key} LIMIT $3`;
  }

  private selectList(includeVectors: boolean): string {
    const columns = [`${this.key} AS ${keyAlias}`, ...this.data.map((c, i) => `${c} AS ${dataAlias(i)}`)];
    if (includeVectors) columns.push(...this.vectors.map((c, i) => `${c}::text AS ${vectorAlias(i)}`));
    return columns.join(', ');
  }
}
