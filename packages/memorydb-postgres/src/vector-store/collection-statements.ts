import { createHash } from 'node:crypto';
import type { DistanceFunction, RecordDefinition } from '@km/core';
import type { ResolvedVectorProperty } from '@km/core/connector';
import { qualified, quoteIdent } from '../identifiers.js';
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
      ...d.data.map((p, i) => `${this.data[i]} ${DATA_COLUMN_TYPES[p.type].ddl}`),
      ...d.vectors.map((p, i) => `${this.vectors[i]} ${vectorColumnType(p.dimensions)}`),
    ];
    return `CREATE TABLE IF NOT EXISTS ${this.table} (${columns.join(', ')})`;
  }

  /** An HNSW index per vector of at most {@link HNSW_MAX_DIMENSIONS}, with the operator class of its distance. */
  createVectorIndexes(m: number, efConstruction: number): string[] {
    return this.definition.vectors.flatMap((p, i) =>
      p.dimensions > HNSW_MAX_DIMENSIONS
        ? []
        : [
            `CREATE INDEX IF NOT EXISTS ${quoteIdent(vectorIndexName(this.table, p.storageName))} ON ${this.table}
              USING hnsw (${this.vectors[i]} ${DISTANCE_SQL[p.distance].opclass})
              WITH (m = ${Math.floor(m)}, ef_construction = ${Math.floor(efConstruction)})`,
          ],
    );
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

  private selectList(includeVectors: boolean): string {
    const columns = [`${this.key} AS ${keyAlias}`, ...this.data.map((c, i) => `${c} AS ${dataAlias(i)}`)];
    if (includeVectors) columns.push(...this.vectors.map((c, i) => `${c}::text AS ${vectorAlias(i)}`));
    return columns.join(', ');
  }
}

/** A short, stable name for the HNSW index of one vector column (the table name may already use the 63 bytes). */
function vectorIndexName(table: string, column: string): string {
  return `km_${createHash('sha256').update(`${table}\u0000${column}`).digest('hex').slice(0, 16)}_hnsw`;
}
