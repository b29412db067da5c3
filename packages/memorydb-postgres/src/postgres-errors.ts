import { IndexNotFoundError, KmError } from '@km/core';

const CONNECTOR = 'postgres';

/** SQLSTATE of a driver error, if any. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the error says the table does not exist. */
export const isUndefinedTable = (error: unknown): boolean => sqlState(error) === '42P01';

/** Turns driver errors into km errors: missing table, wrong vector size, connection trouble. */
export function translateError(error: unknown, index: string): unknown {
  if (error instanceof KmError) return error;
  if (isUndefinedTable(error)) return new IndexNotFoundError(index, { connector: CONNECTOR, cause: error });
  const message = error instanceof Error ? error.message : String(error);
  const dims = /expected (\d+) dimensions, not (\d+)/.exec(message);
  if (dims) {
    return new KmError('vector_size_mismatch', `index "${index}" has vector size ${dims[1]}, got ${dims[2]}`, { connector: CONNECTOR, cause: error });
  }
  const state = sqlState(error) ?? '';
  // Class 08 (connection), 40 (rollback: serialization, deadlock), 53 (resources), 57P (shutdown).
  if (/^(08|40|53|57P)/.test(state) || /ECONNREFUSED|ECONNRESET|ETIMEDOUT/.test(message)) {
    return new KmError('transient', `PostgreSQL: ${message}`, { connector: CONNECTOR, cause: error, transient: true });
  }
  return error;
}
