import { InvalidInputError, type KeyValue, type RecordDefinition } from '@km/core';
import type { StorageRecord } from '@km/core/connector';
import type { Document } from 'mongodb';
import { Double } from 'mongodb';

/** The field holding a record's key: MongoDB's `_id`, whatever the key's storage name. */
export const KEY_FIELD = '_id';

/**
 * Refuses storage names MongoDB would read as something else: a `.` (a path into a
 * sub-document), a leading `$` (an operator), or `_id` for a data or vector property (the
 * key's field); and a key storage name other than `_id` (the key is always `_id`).
 */
export function checkFieldNames(definition: RecordDefinition): void {
  const refuse = (message: string) => {
    throw new InvalidInputError('invalid_argument', message, { connector: 'mongodb' });
  };
  if (definition.key.storageNameGiven && definition.key.storageName !== KEY_FIELD) {
    refuse(`the key of a MongoDB collection is stored in _id; give key "${definition.key.name}" no storageName, or "_id"`);
  }
  for (const property of [...definition.data, ...definition.vectors]) {
    const name = property.storageName;
    if (name.includes('.') || name.startsWith('$') || name === KEY_FIELD) {
      refuse(`storage name "${name}" of property "${property.name}" cannot be a MongoDB field name (no ".", no leading "$", not "_id")`);
    }
  }
}

/** A vector as BSON doubles: the driver would write whole numbers as int32, and a vector index reads arrays of doubles. */
export function toDoubles(vector: Float32Array | readonly number[]): Double[] {
  return Array.from(vector, (x) => new Double(x));
}

/**
 * The document of a record: the key as `_id`, data by storage name (null values left out; the
 * JSON text of a `jsonProperties` property parsed into a native value), vectors as BSON doubles.
 */
export function toVectorDocument(definition: RecordDefinition, record: StorageRecord, jsonProperties: readonly string[] = []): Document {
  const document: Document = { [KEY_FIELD]: record[definition.key.storageName] };
  // Vectors first, then data: the field order of km 0.x's documents (`_id`, `embedding`, `tags`, `payload`).
  for (const vector of definition.vectors) {
    const value = record[vector.storageName];
    if (value !== null && value !== undefined) document[vector.storageName] = toDoubles(value as Float32Array | readonly number[]);
  }
  for (const property of definition.data) {
    const value = record[property.storageName];
    if (value === null || value === undefined) continue;
    document[property.storageName] = jsonProperties.includes(property.storageName) ? (JSON.parse(value as string) as unknown) : value;
  }
  return document;
}

/**
 * The record of a stored document; missing values are null, vectors `Float32Array`s (read only
 * when `includeVectors`), a `jsonProperties` property its document as JSON text (null when it is
 * not a document).
 */
export function fromVectorDocument(
  definition: RecordDefinition,
  document: Document,
  includeVectors: boolean,
  jsonProperties: readonly string[] = [],
): StorageRecord {
  const record: StorageRecord = { [definition.key.storageName]: document[KEY_FIELD] as KeyValue };
  for (const property of definition.data) {
    const value = document[property.storageName];
    if (jsonProperties.includes(property.storageName)) {
      record[property.storageName] = value !== null && typeof value === 'object' && !Array.isArray(value) ? JSON.stringify(value) : null;
      continue;
    }
    record[property.storageName] =
      value === null || value === undefined ? null : property.type === 'number[]' && Array.isArray(value) ? value.map(Number) : value;
  }
  if (includeVectors) {
    for (const vector of definition.vectors) {
      const value = document[vector.storageName];
      record[vector.storageName] = Array.isArray(value) ? Float32Array.from(value, Number) : null;
    }
  }
  return record;
}

/** The fields a read returns: the data, and the vectors when wanted (`_id` always comes). */
export function projectionOf(definition: RecordDefinition, includeVectors: boolean): Document {
  const projection: Document = {};
  for (const property of definition.data) projection[property.storageName] = 1;
  if (includeVectors) for (const vector of definition.vectors) projection[vector.storageName] = 1;
  return projection;
}
