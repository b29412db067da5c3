import { InvalidInputError, KmError } from '../../errors/km-error.js';
import type { LogEntry } from '@km/embedded-engine/record-log';
import type { KeyValue } from '../record-definition-types.js';
import type { StorageRecord } from '../vector-store-driver.js';
import type { StoredDefinition } from './stored-definition.js';

/**
 * One record as the simple store keeps it: its key, its key and data values keyed by storage
 * name (the object filters read: no vectors), and its vectors by storage name (absent when the
 * record has none for that property). Owned by the store: callers only ever get copies.
 */
export interface StoredRow {
  readonly key: KeyValue;
  readonly values: StorageRecord;
  readonly vectors: ReadonlyMap<string, Float32Array>;
}

/**
 * A stored row made from a record handed to `upsert`: every value copied (arrays, dates and
 * vectors too), so the caller's objects are never aliased; missing optional values become null.
 * Vectors of the wrong length are refused (core checks them first; this keeps the log sound).
 */
export function rowFromRecord(definition: StoredDefinition, record: StorageRecord, connector: string): StoredRow {
  const key = getValue(record, definition.key.storageName) as KeyValue;
  const values: StorageRecord = {};
  setValue(values, definition.key.storageName, key);
  for (const property of definition.data) setValue(values, property.storageName, copyValue(getValue(record, property.storageName)));
  const vectors = new Map<string, Float32Array>();
  for (const property of definition.vectors) {
    const vector = getValue(record, property.storageName) as ArrayLike<number> | null | undefined;
    if (vector == null) continue;
    if (vector.length !== property.dimensions) {
      throw new InvalidInputError(
        'invalid_argument',
        `vector "${property.storageName}" of record ${JSON.stringify(key)} has ${vector.length} dimensions, expected ${property.dimensions}`,
        { connector },
      );
    }
    vectors.set(property.storageName, new Float32Array(vector)); // a copy (a typed-array source is copied in one move)
  }
  return { key, values, vectors };
}

/** A copy of a stored row as a driver returns it: values copied, vectors included (copied) when asked for. */
export function recordFromRow(row: StoredRow, includeVectors: boolean): StorageRecord {
  const record: StorageRecord = {};
  for (const name of Object.keys(row.values)) setValue(record, name, copyValue(getValue(row.values, name)));
  if (includeVectors) for (const [name, vector] of row.vectors) setValue(record, name, vector.slice());
  return record;
}

/**
 * The log entry of an upsert: the key as the entry's id (an integer key as its decimal digits),
 * the data values as JSON (dates as ISO strings, to the millisecond) with the positions of the
 * vectors present, and those vectors concatenated as float32 (an exact round trip).
 */
export function rowToLogEntry(definition: StoredDefinition, row: StoredRow): LogEntry {
  const data: StorageRecord = {};
  for (const property of definition.data) setValue(data, property.storageName, getValue(row.values, property.storageName));
  const present: number[] = [];
  let floats = 0;
  definition.vectors.forEach((property, position) => {
    if (row.vectors.has(property.storageName)) {
      present.push(position);
      floats += property.dimensions;
    }
  });
  let vector: Float32Array | undefined;
  if (present.length === 1) {
    vector = row.vectors.get(definition.vectors[present[0]!]!.storageName); // written out, never kept by the log
  } else if (floats > 0) {
    vector = new Float32Array(floats);
    let at = 0;
    for (const position of present) {
      const stored = row.vectors.get(definition.vectors[position]!.storageName)!;
      vector.set(stored, at);
      at += stored.length;
    }
  }
  return { op: 'upsert', record: { id: String(row.key), tags: {}, payloadJson: JSON.stringify({ d: data, v: present }) }, vector };
}

/** The log entry of a delete. */
export function deleteLogEntry(key: KeyValue): LogEntry {
  return { op: 'delete', id: String(key) };
}

/** The key a log entry's id holds, in the definition's key type. */
export function keyFromLogId(definition: StoredDefinition, id: string): KeyValue {
  return definition.key.type === 'integer' ? Number(id) : id;
}

/** The stored row of an upsert read back from the log (its vector is copied: the reader reuses it). */
export function rowFromLogEntry(definition: StoredDefinition, entry: Extract<LogEntry, { op: 'upsert' }>, connector: string): StoredRow {
  const key = keyFromLogId(definition, entry.record.id);
  const { d: data, v: present } = (entry.payload ?? JSON.parse(entry.record.payloadJson)) as { d: StorageRecord; v: number[] };
  const values: StorageRecord = {};
  setValue(values, definition.key.storageName, key);
  for (const property of definition.data) {
    const value = getValue(data, property.storageName) ?? null;
    setValue(values, property.storageName, property.type === 'date' && typeof value === 'string' ? new Date(value) : value);
  }
  const vectors = new Map<string, Float32Array>();
  let at = 0;
  for (const position of present) {
    const property = definition.vectors[position];
    const end = at + (property?.dimensions ?? 0);
    if (!property || !entry.vector || entry.vector.length < end) {
      throw new KmError('storage_corrupt', `the log entry of record ${JSON.stringify(key)} does not match the collection's vectors`, {
        connector,
      });
    }
    vectors.set(property.storageName, entry.vector.slice(at, end));
    at = end;
  }
  return { key, values, vectors };
}

/** A copy of a data value: arrays and dates are copied, anything missing becomes null. */
function copyValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.slice();
  if (value instanceof Date) return new Date(value.getTime());
  return value;
}

/** Sets an own property, even one named `__proto__` (which plain assignment would turn into a prototype). */
function setValue(target: StorageRecord, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

/** An own property's value (never one inherited from `Object.prototype`, e.g. for `__proto__` or `constructor`). */
export function getValue(source: StorageRecord, name: string): unknown {
  return Object.hasOwn(source, name) ? source[name] : undefined;
}
