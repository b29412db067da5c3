import { InvalidInputError } from '@km/core';
import { MAX_IDENTIFIER_BYTES, quoteIdent } from '../identifiers.js';

/**
 * The quoted column of a property's storage name: `hotel "name"` → `"hotel ""name"""`.
 * A name PostgreSQL would cut (over 63 bytes) or cannot hold (NUL) is refused with
 * `invalid_argument` naming the property, before any SQL runs.
 *
 * ```ts
 * quoteColumn({ name: 'name', storageName: 'hotel_name' }); // '"hotel_name"'
 * ```
 */
export function quoteColumn(property: { readonly name: string; readonly storageName: string }): string {
  const { name, storageName } = property;
  if (storageName.length === 0 || storageName.includes('\u0000')) {
    throw new InvalidInputError('invalid_argument', `property "${name}": ${JSON.stringify(storageName)} is not a PostgreSQL column name`, {
      connector: 'postgres',
    });
  }
  if (Buffer.byteLength(storageName, 'utf8') > MAX_IDENTIFIER_BYTES) {
    throw new InvalidInputError(
      'invalid_argument',
      `property "${name}": column name "${storageName}" is longer than PostgreSQL's ${MAX_IDENTIFIER_BYTES} bytes`,
      { connector: 'postgres' },
    );
  }
  return quoteIdent(storageName);
}
