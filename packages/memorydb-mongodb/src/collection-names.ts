import { InvalidInputError } from '@km/core';
import { indexNameLimit } from '@km/core/connector';

const CONNECTOR = 'mongodb';
/** MongoDB 4.4+ namespaces (`database.collection`) hold 255 bytes. */
export const MAX_NAMESPACE_BYTES = 255;

/** Checks a database name: letters, digits, `_` and `-`, at most 63 bytes (MongoDB refuses `/\. "$` and more). */
export function checkDatabaseName(database: string): string {
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(database)) {
    throw new InvalidInputError('invalid_argument', `database may hold 1 to 63 letters, digits, "_" and "-", got "${database}"`, {
      connector: CONNECTOR,
    });
  }
  return database;
}

/** Checks a collection prefix: letters, digits, `_`, `-` and `.`, not `system.` (MongoDB's reserved collections). */
export function checkCollectionPrefix(prefix: string): string {
  if (!/^[A-Za-z0-9_.-]*$/.test(prefix) || prefix.startsWith('system.')) {
    throw new InvalidInputError(
      'invalid_argument',
      `collectionPrefix may hold letters, digits, "_", "-" and "." and may not start with "system.", got "${prefix}"`,
      { connector: CONNECTOR },
    );
  }
  return prefix;
}

/** The longest km index name that fits the namespace `{database}.{prefix}{index}`. */
export function collectionNameLimit(database: string, prefix: string): { bytes: number; reason: string } {
  const room = MAX_NAMESPACE_BYTES - Buffer.byteLength(database, 'utf8') - 1;
  return indexNameLimit(`MongoDB collection names in database "${database}" (namespaces of ${MAX_NAMESPACE_BYTES} bytes)`, room, prefix);
}
