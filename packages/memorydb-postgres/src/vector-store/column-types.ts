import type { DataPropertyType, KeyType } from '@km/core';

/** A column's SQL type as `CREATE TABLE` writes it, and the catalog types (`pg_type.typname`) it accepts in an existing table. */
export interface ColumnType {
  /** What a new table gets, e.g. `double precision`. */
  readonly ddl: string;
  /** `pg_type.typname`s an existing column may have, e.g. `float8`, `float4`, `numeric`. */
  readonly accepts: readonly string[];
}

const TEXT = ['text', 'varchar'];

/** Key columns: `text`, `bigint` or `uuid`; an existing table may use `varchar`, `integer`, `smallint`, or text for uuids. */
export const KEY_COLUMN_TYPES: Readonly<Record<KeyType, ColumnType>> = {
  string: { ddl: 'text', accepts: TEXT },
  integer: { ddl: 'bigint', accepts: ['int8', 'int4', 'int2'] },
  uuid: { ddl: 'uuid', accepts: ['uuid', ...TEXT] },
};

/**
 * Data columns by property type. Existing tables may use narrower or looser kinds that hold the
 * same values (`real` or `numeric` for numbers, `integer` for integers, `varchar` for strings).
 */
export const DATA_COLUMN_TYPES: Readonly<Record<DataPropertyType, ColumnType>> = {
  /** A json or jsonb column holds a string property's JSON text (KM's payload column). */
  string: { ddl: 'text', accepts: [...TEXT, 'json', 'jsonb'] },
  number: { ddl: 'double precision', accepts: ['float8', 'float4', 'numeric'] },
  integer: { ddl: 'bigint', accepts: ['int8', 'int4', 'int2'] },
  boolean: { ddl: 'boolean', accepts: ['bool'] },
  date: { ddl: 'timestamptz', accepts: ['timestamptz'] },
  'string[]': { ddl: 'text[]', accepts: ['_text', '_varchar'] },
  'number[]': { ddl: 'double precision[]', accepts: ['_float8', '_float4', '_numeric'] },
};

/** A vector column: pgvector's `vector(n)`. */
export const vectorColumnType = (dimensions: number): string => `vector(${dimensions})`;

/** Readable name of a catalog type for error messages: `float8` → `double precision`. */
export function describeCatalogType(typname: string): string {
  const names: Record<string, string> = {
    float8: 'double precision',
    float4: 'real',
    int8: 'bigint',
    int4: 'integer',
    int2: 'smallint',
    bool: 'boolean',
    varchar: 'character varying',
    bpchar: 'character',
    timestamptz: 'timestamp with time zone',
    timestamp: 'timestamp without time zone',
  };
  return typname.startsWith('_') ? `${describeCatalogType(typname.slice(1))}[]` : (names[typname] ?? typname);
}
