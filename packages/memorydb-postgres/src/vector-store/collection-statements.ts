import { type DistanceFunction, InvalidInputError, type RecordDefinition } from '@km/core';
import type { ResolvedDataProperty, ResolvedVectorProperty } from '@km/core/connector';
import type { FullTextTable } from '../full-text.js';
import { qualified, quoteIdent, secondaryIndexName } from '../identifiers.js';
import { quoteColumn } from './column-names.js';
import { DATA_COLUMN_TYPES, KEY_COLUMN_TYPES, vectorColumnType } from './column-types.js';
import { EXACT_RANKING_ROWS } from './lexical-plan.js';
import { dataAlias, keyAlias, scoreAlias, vectorAlias } from './storage-rows.js';

/** pgvector's operator of each distance (smaller is closer for all three) and its HNSW operator class (`vector_…` or `halfvec_…`). */
const DISTANCE_SQL: Readonly<Record<DistanceFunction, { operator: string; opclass: string }>> = {
  cosine: { operator: '<=>', opclass: 'cosine_ops' },
  dot: { operator: '<#>', opclass: 'ip_ops' },
  euclidean: { operator: '<->', opclass: 'l2_ops' },
};

/** Where the filter's parameters start in {@link CollectionStatements.lexicalRank} of `tiers` candidate tiers. */
export function lexicalWhereStart(tiers: number): number {
  return tiers === 0 ? 5 : 6 + tiers;
}

/** pgvector's HNSW index takes `vector`s of at most 2000 dimensions. */
export const HNSW_MAX_DIMENSIONS = 2000;
/** … and `halfvec`s of at most 4000 (pgvector 0.7+): larger vectors are indexed through a `halfvec` cast. */
export const HALFVEC_HNSW_MAX_DIMENSIONS = 4000;

/** HNSW build settings of {@link CollectionStatements.createVectorIndexes}. */
export interface HnswSettings {
  readonly m: number;
  readonly efConstruction: number;
}

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
    /** pgvector has `halfvec` (0.7+): vectors of 2001 to 4000 dimensions are indexed and searched through its cast. */
    private readonly halfvec = true,
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

  /**
   * The HNSW index of each vector pgvector can index, named by {@link secondaryIndexName}, with
   * the operator class of its distance: on the column up to {@link HNSW_MAX_DIMENSIONS}
   * dimensions, on its `halfvec` cast up to {@link HALFVEC_HNSW_MAX_DIMENSIONS}; larger vectors
   * have none (searches scan them exactly).
   */
  createVectorIndexes(hnsw: HnswSettings): Array<{ name: string; column: string; sql: string }> {
    return this.definition.vectors.flatMap((p, i) => {
      const indexed = this.indexedVector(p, this.vectors[i]!);
      if (indexed === undefined) return [];
      const name = secondaryIndexName(this.table, 'hnsw', p.storageName);
      const sql = `CREATE INDEX IF NOT EXISTS ${quoteIdent(name)} ON ${this.table}
              USING hnsw (${indexed.expression} ${indexed.type}_${DISTANCE_SQL[p.distance].opclass})
              WITH (m = ${Math.floor(hnsw.m)}, ef_construction = ${Math.floor(hnsw.efConstruction)})`;
      return [{ name, column: p.storageName, sql }];
    });
  }

  /** How a vector is indexed and ordered: the column, or its `halfvec` cast; undefined when too large for HNSW. */
  private indexedVector(p: ResolvedVectorProperty, column: string): { expression: string; type: 'vector' | 'halfvec' } | undefined {
    if (p.dimensions <= HNSW_MAX_DIMENSIONS) return { expression: column, type: 'vector' };
    if (this.halfvec && p.dimensions <= HALFVEC_HNSW_MAX_DIMENSIONS) {
      return { expression: `(${column}::halfvec(${p.dimensions}))`, type: 'halfvec' };
    }
    return undefined;
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

  /**
   * Replaces the `string[]` column of `property` (its storage name) in the rows named by $1, a
   * JSON list of `{"k": key, "v": [values]}`, in one statement; keys without a row are skipped.
   * The column's own indexes (its GIN index) follow the update as they follow an upsert.
   */
  replaceStringArray(storageName: string): string {
    const i = this.definition.data.findIndex((p) => p.storageName === storageName);
    const property = this.definition.data[i];
    if (!property || property.type !== 'string[]') {
      const message = `collection "${this.collection}" has no string[] property stored as "${storageName}"`;
      throw new InvalidInputError('invalid_argument', message, { connector: 'postgres' });
    }
    const keyType = KEY_COLUMN_TYPES[this.definition.key.type].ddl;
    return `UPDATE ${this.table} AS t SET ${this.data[i]} = ARRAY(SELECT e FROM jsonb_array_elements_text(u.v) WITH ORDINALITY AS x(e, n) ORDER BY n)
      FROM jsonb_to_recordset($1::jsonb) AS u(k text, v jsonb) WHERE t.${this.key} = u.k::${keyType}`;
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
    const { operator } = DISTANCE_SQL[vector.distance];
    const distance = `${column} ${operator} $1::vector`;
    const score = vector.distance === 'cosine' ? `1 - (${distance})` : vector.distance === 'dot' ? `-(${distance})` : distance;
    // A vector indexed through its halfvec cast is ordered by the cast's distance (so the index
    // serves it); its score stays the exact one.
    const indexed = this.indexedVector(vector, column);
    const order = indexed?.type === 'halfvec' ? `${indexed.expression} ${operator} $1::halfvec(${vector.dimensions})` : distance;
    return `SELECT ${this.selectList(includeVectors)}, ${score} AS ${scoreAlias} FROM ${this.table}
      WHERE ${column} IS NOT NULL AND ${where} ORDER BY ${order} LIMIT $2`;
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
   * The lexemes of the text $2 under configuration $1, each as a tsquery literal (quoted, never
   * parsed as an operator) with `df`, the rows of the table whose full-text column `tsvector`
   * holds it, and `n`, the table's rows; `exact` when both are counted. They are counted while
   * PostgreSQL estimates the table ($3) under {@link EXACT_RANKING_ROWS} rows. Past it, `n` is
   * that estimate, a lexeme among the column's most common elements in `pg_stats` (schema $4,
   * table $5, column $6) takes its frequency times `n`, and another is counted up to $7 rows
   * (beyond, the smallest common frequency times `n`): nothing scans the table.
   */
  lexicalTerms(tsvector: string): string {
    const tsv = quoteIdent(tsvector);
    const quoted = `chr(39) || replace(replace(l, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39)`;
    return `WITH km_terms AS (
        SELECT DISTINCT l AS lexeme, ${quoted} AS literal FROM unnest(tsvector_to_array(to_tsvector($1::regconfig, $2::text))) AS l),
      km_n AS (
        SELECT CASE WHEN c.reltuples >= ${EXACT_RANKING_ROWS} THEN c.reltuples::float8 END AS estimate FROM pg_class c WHERE c.oid = $3::regclass),
      km_stats AS (
        SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs
        FROM pg_stats s WHERE s.schemaname = $4 AND s.tablename = $5 AND s.attname = $6 AND s.most_common_elems IS NOT NULL),
      km_common AS (
        SELECT e.lexeme, e.freq FROM km_stats CROSS JOIN LATERAL unnest(km_stats.elems, km_stats.freqs) AS e(lexeme, freq) WHERE e.lexeme IS NOT NULL)
      SELECT t.literal, km_n.estimate IS NULL AS exact,
        COALESCE(km_n.estimate, (SELECT count(*) FROM ${this.table})::float8) AS n,
        CASE
          WHEN km_n.estimate IS NULL THEN (SELECT count(*) FROM ${this.table} WHERE ${tsv} @@ t.literal::tsquery)::float8
          WHEN c.freq IS NOT NULL THEN c.freq * km_n.estimate
          ELSE (SELECT CASE WHEN r.rows < $7 THEN r.rows
                  ELSE GREATEST(r.rows, COALESCE((SELECT s.freqs[array_length(s.elems, 1) + 1] FROM km_stats s), 0) * km_n.estimate) END
                FROM (SELECT count(*)::float8 AS rows FROM (SELECT 1 FROM ${this.table} WHERE ${tsv} @@ t.literal::tsquery LIMIT $7) AS x) AS r)
        END AS df
      FROM km_terms t CROSS JOIN km_n LEFT JOIN km_common c ON c.lexeme = t.lexeme
      ORDER BY t.literal`;
  }

  /**
   * The rows holding any of the lexemes $1 (tsquery literals, from {@link lexicalTerms}) best
   * first (ties in key order), at most $4, under `where` (its parameters from
   * {@link lexicalWhereStart}). BM25-like: each lexeme weighs its `ts_rank_cd` in the row
   * (divided by 1 + log(length), flag 1) by its inverse document frequency
   * ln(1 + (N − df + 0.5) / (df + 0.5)), df its rows ($2, in the order of $1) and N the table's ($3); the sum s
   * becomes s / (s + 1), in [0, 1). With `tiers` tiers, only candidates are ranked: at most $5
   * rows, taken from the rows holding the tsquery $6 (the best tier), then $7, and so on, the
   * last only when the others found fewer than $4 rows if `lastTierIfShort` (see
   * `planCandidates`). The weights are fitted (see the README's relevance section): keep them.
   */
  lexicalRank(tsvector: string, where: string, includeVectors: boolean, tiers: number, lastTierIfShort = false): string {
    const tsv = quoteIdent(tsvector);
    const key = `${this.key}${this.definition.key.type === 'string' ? ' COLLATE "C"' : ''}`;
    // Ranking returns keys and scores only; the columns (vectors as text included) are read for
    // the best rows alone, not for every row ranked.
    const scored = `SELECT km_t.${this.key} AS km_k, km_s.km_score / (km_s.km_score + 1) AS km_r`;
    // The row's tsvector is read from TOAST once (`|| ''` makes an in-memory copy, OFFSET 0 keeps
    // the subquery from being inlined), not once per word and function.
    const score = `CROSS JOIN LATERAL (SELECT km_t.${tsv} || ''::tsvector AS km_tsv OFFSET 0) AS km_v
      CROSS JOIN LATERAL (SELECT sum(i.idf * ts_rank_cd(km_v.km_tsv, i.term, 1)) AS km_score FROM km_idf i WHERE km_v.km_tsv @@ i.term) AS km_s`;
    const idf = `km_idf AS (
        SELECT t.literal::tsquery AS term, ln(1 + (GREATEST($3::float8, t.df) - t.df + 0.5) / (t.df + 0.5)) AS idf
        FROM unnest($1::text[], $2::float8[]) AS t(literal, df) WHERE t.df > 0)`;
    const best = `ORDER BY km_r DESC, km_t.${key} LIMIT $4`;
    const ranked =
      tiers === 0
        ? `km_q AS (SELECT string_agg(i.term::text, ' | ')::tsquery AS km_query FROM km_idf i),
      km_best AS (${scored}
        FROM ${this.table} AS km_t CROSS JOIN km_q ${score}
        WHERE km_t.${tsv} @@ km_q.km_query AND ${where}
        ${best})`
        : this.candidates(tsv, where, tiers, lastTierIfShort) +
          `,
      km_best AS (${scored}
        FROM km_c JOIN ${this.table} AS km_t ON km_t.${this.key} = km_c.km_k ${score}
        ${best})`;
    return `WITH ${idf},
      ${ranked}
      SELECT ${this.selectList(includeVectors, 'km_t.')}, km_best.km_r AS ${scoreAlias}
      FROM km_best JOIN ${this.table} AS km_t ON km_t.${this.key} = km_best.km_k
      ORDER BY km_best.km_r DESC, km_t.${key}`;
  }

  /**
   * `km_c`, the keys of at most $5 candidates: the rows of each tier's tsquery ($6, $7, …) under
   * `where`, tier after tier until $5 rows are found (a later tier runs only if needed). With
   * `lastTierIfShort`, the last tier runs only when the others found fewer than $4 rows (the
   * search's limit): on a large table its tsquery can be an OR of common words, whose bitmap
   * costs more than the whole rest of the search.
   */
  private candidates(tsv: string, where: string, tiers: number, lastTierIfShort: boolean): string {
    const tier = (i: number) => `(SELECT ${this.key} AS km_k FROM ${this.table} WHERE ${tsv} @@ $${6 + i}::tsquery AND ${where} LIMIT $5)`;
    const first = Array.from({ length: lastTierIfShort ? tiers - 1 : tiers }, (_, i) => tier(i)).join(' UNION ALL ');
    if (!lastTierIfShort) {
      return `km_c AS MATERIALIZED (SELECT DISTINCT km_k FROM (SELECT km_k FROM (${first}) AS u LIMIT $5) AS c)`;
    }
    const last = `(SELECT ${this.key} AS km_k FROM ${this.table} WHERE ${tsv} @@ $${5 + tiers}::tsquery AND ${where}
        AND (SELECT count(DISTINCT km_k) FROM km_first) < $4 LIMIT $5)`;
    return `km_first AS MATERIALIZED (SELECT km_k FROM (${first}) AS u LIMIT $5),
      km_c AS MATERIALIZED (SELECT DISTINCT km_k FROM (SELECT km_k FROM km_first UNION ALL ${last}) AS c)`;
  }

  private selectList(includeVectors: boolean, alias = ''): string {
    const columns = [`${alias}${this.key} AS ${keyAlias}`, ...this.data.map((c, i) => `${alias}${c} AS ${dataAlias(i)}`)];
    if (includeVectors) columns.push(...this.vectors.map((c, i) => `${alias}${c}::text AS ${vectorAlias(i)}`));
    return columns.join(', ');
  }
}
