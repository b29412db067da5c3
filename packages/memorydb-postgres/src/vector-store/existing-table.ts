import { InvalidInputError, type RecordDefinition } from '@km/core';
import type { SqlQueryable } from '../sql-client.js';
import { DATA_COLUMN_TYPES, describeCatalogType, KEY_COLUMN_TYPES, type ColumnType } from './column-types.js';

interface CatalogColumn {
  name: string;
  type: string;
  typmod: number;
}

/** The columns of a table (`"schema"."table"`), or undefined when there is no such table. */
export async function readColumns(db: SqlQueryable, table: string): Promise<Map<string, CatalogColumn> | undefined> {
  const { rows } = await db.query<{ found: boolean; name: string | null; type: string | null; typmod: number | null }>(
    `SELECT r.oid IS NOT NULL AS found, a.attname AS name, t.typname AS type, a.atttypmod AS typmod
     FROM (SELECT to_regclass($1) AS oid) r
     LEFT JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
     LEFT JOIN pg_type t ON t.oid = a.atttypid`,
    [table],
  );
  if (!rows[0]?.found) return undefined;
  const columns = new Map<string, CatalogColumn>();
  for (const row of rows)
    if (row.name !== null) columns.set(row.name, { name: row.name, type: row.type ?? '', typmod: Number(row.typmod) });
  return columns;
}

/** True when the column has a unique index of its own (a primary key or a unique constraint), as `ON CONFLICT` needs. */
export async function isUniqueColumn(db: SqlQueryable, table: string, column: string): Promise<boolean> {
  const { rows } = await db.query<{ unique: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
       WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indnkeyatts = 1
         AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = $2) AS unique`,
    [table, column],
  );
  return rows[0]?.unique === true;
}

/**
 * Checks that an existing table can hold the collection's records: every mapped column exists
 * with a type that holds the property's values (see `column-types.ts`), vectors are `vector` of
 * the definition's dimensions (or of none), and the key column is unique. Throws
 * `invalid_argument` naming the first column that does not fit; changes nothing.
 */
export async function checkExistingTable(
  db: SqlQueryable,
  table: string,
  collection: string,
  definition: RecordDefinition,
  columns: Map<string, CatalogColumn>,
): Promise<void> {
  const refuse = (message: string): never => {
    throw new InvalidInputError('invalid_argument', `collection "${collection}": ${message}`, { connector: 'postgres' });
  };
  const column = (property: { name: string; storageName: string }): CatalogColumn =>
    columns.get(property.storageName) ?? refuse(`table ${table} has no column "${property.storageName}" (property "${property.name}")`);
  const expect = (property: { name: string; storageName: string }, kind: string, type: ColumnType): void => {
    const found = column(property);
    if (!type.accepts.includes(found.type)) {
      refuse(
        `column "${found.name}" of table ${table} is ${describeCatalogType(found.type)}; property "${property.name}" (${kind}) needs ${type.accepts.map(describeCatalogType).join(' or ')}`,
      );
    }
  };

  expect(definition.key, `${definition.key.type} key`, KEY_COLUMN_TYPES[definition.key.type]);
  for (const property of definition.data) expect(property, property.type, DATA_COLUMN_TYPES[property.type]);
  for (const property of definition.vectors) {
    const found = column(property);
    const size = found.type === 'vector' && found.typmod > 0 ? found.typmod : undefined;
    if (found.type !== 'vector' || (size !== undefined && size !== property.dimensions)) {
      const has = found.type === 'vector' ? `vector(${size})` : describeCatalogType(found.type);
      refuse(`column "${found.name}" of table ${table} is ${has}; property "${property.name}" needs vector(${property.dimensions})`);
    }
  }
  if (!(await isUniqueColumn(db, table, definition.key.storageName))) {
    refuse(`key column "${definition.key.storageName}" of table ${table} has no primary key or unique index of its own; upserts need one`);
  }
}
