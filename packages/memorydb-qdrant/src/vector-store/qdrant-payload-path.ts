import { InvalidInputError, type RecordDefinition } from '@km/core';

/** A key Qdrant's JSON path reads as is: letters, digits, `_` and `-`. */
const RAW_KEY = /^[\p{L}\p{N}_-]+$/u;

/**
 * The Qdrant JSON path of a top-level payload field, as filters and payload indexes name it: the
 * name itself when it is letters, digits, `_` and `-`, else the name in double quotes (so `a.b`
 * is the field `"a.b"`, not `b` inside `a`). Qdrant's paths have no escape, so a name holding `"`
 * or `\` cannot be named and is refused with `invalid_argument`.
 *
 * ```ts
 * payloadPath('rating'); // 'rating'
 * payloadPath('a.b'); // '"a.b"'
 * ```
 */
export function payloadPath(storageName: string): string {
  if (RAW_KEY.test(storageName)) return storageName;
  if (/["\\]/.test(storageName)) {
    throw new InvalidInputError(
      'invalid_argument',
      `the payload field "${storageName}" cannot be filtered on in Qdrant: its paths cannot hold '"' or '\\'`,
      { connector: 'qdrant' },
    );
  }
  return `"${storageName}"`;
}

/** Checks that every field filters may name (filterable data properties, an integer key) has a Qdrant path. */
export function checkPayloadPaths(definition: RecordDefinition): void {
  for (const p of definition.data) if (p.filterable) payloadPath(p.storageName);
  if (definition.key.type === 'integer') payloadPath(definition.key.storageName);
}
