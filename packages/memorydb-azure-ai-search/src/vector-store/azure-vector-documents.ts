import { InvalidInputError, type KeyValue, type RecordDefinition } from '@km/core';
import type { ResolvedKeyProperty, StorageRecord } from '@km/core/connector';
import { documentKeyOf, MAX_RECORD_ID_UNITS, recordIdOfKey } from '../document-key.js';

const CONNECTOR = 'azureaisearch';
/** Azure AI Search field names: a letter, then letters, digits and `_`, at most 128 characters, not starting with `azureSearch`. */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;

/** A search document as the SDK sends and returns it. */
export type AzureVectorDocument = Record<string, unknown>;

/** Refuses storage names the service does not take as field names (they cannot be quoted in OData). */
export function checkFieldNames(definition: RecordDefinition): void {
  for (const property of [definition.key, ...definition.data, ...definition.vectors]) {
    const name = property.storageName;
    if (!FIELD_NAME.test(name) || /^azureSearch/i.test(name)) {
      throw new InvalidInputError(
        'invalid_argument',
        `storage name "${name}" of property "${property.name}" is no Azure AI Search field name (a letter, then letters, digits and _, at most 128, not starting with azureSearch)`,
        { connector: CONNECTOR },
      );
    }
  }
}

/**
 * The document key of a record key (the key field is always `Edm.String`, of letters, digits,
 * `_`, `-` and `=`): an integer as its decimal text, a uuid as it is, a string key in the
 * package's reversible, order-keeping base32hex encoding (`documentKeyOf`), so any string fits.
 *
 * ```ts
 * documentKeyFor(key, 42);   // '42' (integer key)
 * documentKeyFor(key, 'a');  // '01gg' (string key)
 * ```
 */
export function documentKeyFor(key: ResolvedKeyProperty, value: KeyValue): string {
  if (key.type === 'integer') return String(value);
  if (key.type === 'uuid') return String(value);
  const encoded = documentKeyOf(String(value));
  if (encoded === undefined) {
    throw new InvalidInputError(
      'invalid_argument',
      `key "${String(value).slice(0, 40)}..." is longer than ${MAX_RECORD_ID_UNITS} UTF-16 code units, the longest an Azure AI Search document key can hold`,
      { connector: CONNECTOR },
    );
  }
  return encoded;
}

/** The record key of a document key made by {@link documentKeyFor}. */
export function keyOfDocumentKey(key: ResolvedKeyProperty, stored: unknown): KeyValue {
  const text = String(stored);
  if (key.type === 'integer') return Number(text);
  if (key.type === 'uuid') return text;
  return recordIdOfKey(text) ?? text;
}

/** The document of a record: the key encoded (and given as it is in `keyTextField`, when named), dates as `Date`s (the SDK sends ISO text), vectors as arrays; nulls as null. */
export function toAzureDocument(definition: RecordDefinition, record: StorageRecord, keyTextField?: string): AzureVectorDocument {
  const key = record[definition.key.storageName] as KeyValue;
  const document: AzureVectorDocument = { [definition.key.storageName]: documentKeyFor(definition.key, key) };
  if (keyTextField !== undefined) document[keyTextField] = String(key);
  for (const property of definition.data) document[property.storageName] = record[property.storageName] ?? null;
  for (const vector of definition.vectors) {
    const value = record[vector.storageName];
    document[vector.storageName] = value === null || value === undefined ? null : Array.from(value as Float32Array);
  }
  return document;
}

/** The record of a document read back; missing values are null, dates `Date`s, vectors `Float32Array`s (only when `includeVectors`). */
export function fromAzureDocument(definition: RecordDefinition, document: AzureVectorDocument, includeVectors: boolean): StorageRecord {
  const record: StorageRecord = {
    [definition.key.storageName]: keyOfDocumentKey(definition.key, document[definition.key.storageName]),
  };
  for (const property of definition.data) {
    const value = document[property.storageName];
    if (value === null || value === undefined) record[property.storageName] = null;
    else if (property.type === 'date') record[property.storageName] = value instanceof Date ? value : new Date(String(value));
    else if (property.type === 'string') record[property.storageName] = sdkText(value);
    else if (property.type === 'string[]') record[property.storageName] = (value as unknown[]).map(sdkText);
    else record[property.storageName] = value;
  }
  if (includeVectors) {
    for (const vector of definition.vectors) {
      const value = document[vector.storageName];
      record[vector.storageName] = Array.isArray(value) ? Float32Array.from(value as number[]) : null;
    }
  }
  return record;
}

/**
 * A string value back from what the SDK made of it: it reads `NaN`, `INF` and `-INF` as numbers
 * (given back as that text) and ISO-8601 UTC timestamps as `Date`s (given back in
 * `toISOString` form, which may differ from the text written, e.g. `…:00Z` → `…:00.000Z`).
 */
function sdkText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'INF' : '-INF';
  return String(value);
}
