import type { KeyValue, RecordDefinition } from '@km/core';
import type { ResolvedDataProperty, StorageRecord } from '@km/core/connector';
import { decodeIndexedTag, encodeIndexedTag, TAG_SEPARATOR } from '../tag-field.js';
import { fromFloat32Blob, toFloat32Blob } from '../vector-blob.js';

/** The stored form of an empty string, which a TAG field would drop (`%` alone is never an encoded value). */
const EMPTY_STRING = '%';

/**
 * A string as stored and as matched in a TAG field: the package's reversible tag encoding (the
 * separator, `%`, white space and control characters as `%XX`), the empty string as `%`.
 *
 * ```ts
 * encodeTagValue('Sea View, Nice'); // 'Sea%20View%2C%20Nice'
 * ```
 */
export function encodeTagValue(value: string): string {
  return value === '' ? EMPTY_STRING : encodeIndexedTag(value);
}

/** A string back from {@link encodeTagValue}. */
export function decodeTagValue(stored: string): string {
  return stored === EMPTY_STRING ? '' : decodeIndexedTag(stored);
}

/** A number as stored in a NUMERIC field and written in a query: its shortest round-trip text (`-0` as `0`). */
export function numberText(value: number): string {
  return Object.is(value, -0) ? '0' : String(value);
}

/** A field value as read with the Buffer type mapping (or as a string by a client without it). */
export type FieldValue = Buffer | string | null | undefined;

/**
 * Fields stored as their text, as is, instead of in the TAG encoding (see
 * `RedisStorageOptions`): the key's field when `plainKey`, and the string properties named in
 * `plainText` (storage names). No filter can match such a field: it is not indexed.
 */
export interface PlainFields {
  readonly plainKey?: boolean | undefined;
  readonly plainText?: ReadonlySet<string> | undefined;
}

/** The hash fields of a record (storage names → values); null and absent values are left out. */
export function toVectorHash(
  definition: RecordDefinition,
  record: StorageRecord,
  plain: PlainFields = {},
): Record<string, string | Buffer> {
  const key = record[definition.key.storageName] as KeyValue;
  // The key field is what filters on the key match: a TAG value (encoded) or a NUMERIC one.
  const hash: Record<string, string | Buffer> = {
    [definition.key.storageName]: typeof key === 'number' ? numberText(key) : plain.plainKey ? key : encodeTagValue(key),
  };
  for (const property of definition.data) {
    const value = record[property.storageName];
    if (value === null || value === undefined) continue;
    hash[property.storageName] = plain.plainText?.has(property.storageName) ? String(value) : dataText(property, value);
  }
  for (const vector of definition.vectors) {
    const value = record[vector.storageName];
    if (value !== null && value !== undefined) hash[vector.storageName] = toFloat32Blob(value as Float32Array);
  }
  return hash;
}

/** The text of a key in its hash key. */
export function keyText(key: KeyValue): string {
  return typeof key === 'number' ? numberText(key) : key;
}

function dataText(property: ResolvedDataProperty, value: unknown): string {
  switch (property.type) {
    case 'string':
      return encodeTagValue(value as string);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'date':
      return numberText((value as Date).getTime());
    case 'number':
    case 'integer':
      return numberText(value as number);
    case 'string[]':
      return (value as string[]).map(encodeTagValue).join(TAG_SEPARATOR);
    case 'number[]':
      return (value as number[]).map(numberText).join(TAG_SEPARATOR);
  }
}

const text = (value: FieldValue): string | undefined => (value === null || value === undefined ? undefined : value.toString('utf8'));

/**
 * The record of a hash read back (`fields` by storage name, as HMGET or FT.SEARCH return them);
 * `key` is the record's key (from the hash key). Missing values are null; vectors are read only
 * when `includeVectors`.
 */
export function fromVectorHash(
  definition: RecordDefinition,
  key: KeyValue,
  fields: Readonly<Record<string, FieldValue>>,
  includeVectors: boolean,
  plain: PlainFields = {},
): StorageRecord {
  const record: StorageRecord = { [definition.key.storageName]: key };
  for (const property of definition.data) {
    const stored = text(fields[property.storageName]);
    record[property.storageName] =
      stored === undefined ? null : plain.plainText?.has(property.storageName) ? stored : dataValue(property, stored);
  }
  if (includeVectors) {
    for (const vector of definition.vectors) {
      const blob = fields[vector.storageName];
      record[vector.storageName] =
        blob === null || blob === undefined ? null : fromFloat32Blob(Buffer.isBuffer(blob) ? blob : Buffer.from(blob, 'binary'));
    }
  }
  return record;
}

function dataValue(property: ResolvedDataProperty, stored: string): unknown {
  switch (property.type) {
    case 'string':
      return decodeTagValue(stored);
    case 'boolean':
      return stored === 'true';
    case 'date':
      return new Date(Number(stored));
    case 'number':
    case 'integer':
      return Number(stored);
    case 'string[]':
      return stored === '' ? [] : stored.split(TAG_SEPARATOR).map(decodeTagValue);
    case 'number[]':
      return stored === '' ? [] : stored.split(TAG_SEPARATOR).map(Number);
  }
}

/** The key of a record from its hash key (`{keyPrefix}{key}`): a number for integer keys. */
export function keyOfHashKey(definition: RecordDefinition, keyPrefix: string, hashKey: string): KeyValue {
  const text = hashKey.startsWith(keyPrefix) ? hashKey.slice(keyPrefix.length) : hashKey;
  return definition.key.type === 'integer' ? Number(text) : text;
}
