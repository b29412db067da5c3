import { createHash } from 'node:crypto';
import { InvalidInputError } from '@km/core';

/** Longest identifier PostgreSQL keeps (longer ones are silently cut, so they are refused). */
export const MAX_IDENTIFIER_BYTES = 63;

/** Quotes an identifier: `my"table` → `"my""table"`. Every identifier the connector emits goes through here. */
export function quoteIdent(name: string): string {
  if (name.length === 0 || name.includes('\u0000')) {
    throw new InvalidInputError('invalid_index_name', `invalid SQL identifier ${JSON.stringify(name)}`, { connector: 'postgres' });
  }
  if (Buffer.byteLength(name, 'utf8') > MAX_IDENTIFIER_BYTES) {
    throw new InvalidInputError('invalid_index_name', `identifier "${name}" is longer than PostgreSQL's ${MAX_IDENTIFIER_BYTES} bytes`, {
      connector: 'postgres',
    });
  }
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"schema"."table"`. */
export function qualified(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

/** Short, stable names for a table's indexes (the table name may already use the 63 bytes), one per column and purpose. */
export function secondaryIndexName(table: string, purpose: 'gin' | 'hnsw' | 'text', column: string): string {
  return `km_${createHash('sha256').update(`${table}\u0000${column}`).digest('hex').slice(0, 16)}_${purpose}`;
}
