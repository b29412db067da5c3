import type { KeyValue, RecordDefinition } from '@km/core';
import type { StorageRecord } from '@km/core/connector';
import { documentIdOf } from '../document-id.js';
import type { ElasticsearchFieldStorage } from './elasticsearch-vector-store-options.js';

/**
 * The document of a storage record: the key under its storage name (the `_id` holds it too, as
 * a string), data values (dates as ISO 8601 strings, nulls left out), vectors as number arrays
 * (a missing optional vector left out, so kNN searches skip the document).
 */
export function toElasticsearchDocument(
  definition: RecordDefinition,
  record: StorageRecord,
  storage: ElasticsearchFieldStorage = {},
): Record<string, unknown> {
  const document: Record<string, unknown> = { [definition.key.storageName]: record[definition.key.storageName] };
  for (const p of definition.data) {
    const value = record[p.storageName];
    if (value === null || value === undefined) continue;
    if (typeof value === 'string' && storage.jsonFields?.includes(p.storageName)) document[p.storageName] = JSON.parse(value);
    else document[p.storageName] = value instanceof Date ? value.toISOString() : value;
  }
  for (const v of definition.vectors) {
    const value = record[v.storageName];
    if (value === null || value === undefined) continue;
    document[v.storageName] = Array.from(value as ArrayLike<number>);
  }
  return document;
}

/** The `_id` of a key: its string form (with `hashedIds`, a string key over 512 bytes is hashed, see `documentIdOf`). */
export function documentIdOfKey(key: KeyValue, storage: ElasticsearchFieldStorage = {}): string {
  return storage.hashedIds && typeof key === 'string' ? documentIdOf(key) : String(key);
}

/**
 * The storage record of a hit's `_source` (the key from its field, else from `_id`; data null
 * when absent, dates as `Date`; vectors as `Float32Array` when asked for and present).
 */
export function fromElasticsearchDocument(
  definition: RecordDefinition,
  id: string | undefined,
  source: Record<string, unknown>,
  includeVectors: boolean,
  storage: ElasticsearchFieldStorage = {},
): StorageRecord {
  const { key } = definition;
  const stored = source[key.storageName] ?? id;
  const record: StorageRecord = { [key.storageName]: key.type === 'integer' ? Number(stored) : String(stored) };
  for (const p of definition.data) {
    const value = source[p.storageName];
    record[p.storageName] =
      value === null || value === undefined
        ? null
        : p.type === 'date'
          ? new Date(String(value))
          : typeof value === 'object' && storage.jsonFields?.includes(p.storageName)
            ? JSON.stringify(value)
            : value;
  }
  if (includeVectors) {
    for (const v of definition.vectors) {
      const value = source[v.storageName];
      if (Array.isArray(value)) record[v.storageName] = Float32Array.from(value as number[]);
    }
  }
  return record;
}

/** The `_source` fields a read leaves out: the `unreadFields`, and the vectors unless asked for. */
export function vectorSourceExcludes(
  definition: RecordDefinition,
  includeVectors: boolean,
  storage: ElasticsearchFieldStorage = {},
): string[] {
  return [...(storage.unreadFields ?? []), ...(includeVectors ? [] : definition.vectors.map((v) => v.storageName))];
}
