import { InvalidInputError } from '../errors/km-error.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';
import { toDateValue } from './date-value.js';
import type { KeyValue, RecordDefinition, ResolvedDataProperty, ResolvedVectorProperty } from './record-definition-types.js';
import { checkKey } from './record-key.js';
import type { StorageRecord } from './vector-store-driver.js';

/** An application record checked and mapped to storage names. */
export interface MappedRecord {
  /** The key as stored (uuid keys lowercased). */
  readonly key: KeyValue;
  /** Key, data and the vectors given, by storage name; missing optional data values are null. */
  readonly storage: StorageRecord;
  /** Vectors left out whose `embed` source holds text: the caller embeds them. */
  readonly toEmbed: readonly ResolvedVectorProperty[];
}

/**
 * Checks an application record against its definition and maps it to storage names: the key
 * checked (uuid lowercased), data values of their types (dates from `Date` or ISO-8601 strings,
 * arrays copied), vectors as `Float32Array`s of the exact dimensions. Missing optional values
 * become null; a missing vector is left to embed when its source holds text, left out when it
 * is optional, refused otherwise. Unknown properties are refused. Throws `invalid_argument`
 * naming the record (`where`) and the property.
 *
 * ```ts
 * toStorageRecord(Hotel, { hotelId: 'h1', name: 'Sea View', description: 'Quiet rooms' });
 * // { key: 'h1', storage: { hotelId: 'h1', name: 'Sea View', rating: null, description: 'Quiet rooms' }, toEmbed: [descriptionEmbedding] }
 * ```
 */
export function toStorageRecord(definition: RecordDefinition<unknown>, record: unknown, where = 'record'): MappedRecord {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw invalid(`${where} must be an object`);
  const values = record as Record<string, unknown>;
  checkKnownProperties(definition, values, where);
  const keyValue = values[definition.key.name];
  if (keyValue === undefined || keyValue === null) throw invalid(`${where} has no key ${definition.key.name}`);
  const key = checkKey(definition.key, keyValue);
  const storage: StorageRecord = { [definition.key.storageName]: key };
  for (const property of definition.data) {
    storage[property.storageName] = checkDataValue(property, values[property.name], where);
  }
  const toEmbed: ResolvedVectorProperty[] = [];
  for (const property of definition.vectors) {
    const value = values[property.name];
    if (value !== undefined && value !== null) {
      storage[property.storageName] = checkVectorValue(property, value, `${where}: vector ${property.name}`);
    } else if (property.embed !== undefined && typeof values[property.embed] === 'string') {
      toEmbed.push(property);
    } else if (!property.optional) {
      const source = property.embed === undefined ? '' : ` and its source ${property.embed} holds no text`;
      throw invalid(`${where} has no vector ${property.name}${source}`);
    }
  }
  return { key, storage, toEmbed };
}

/**
 * Maps a stored record back to property names: the key, every data value (null when missing,
 * dates as `Date`, arrays copied) and, when asked, the vectors (`Float32Array` copies, null when
 * not stored).
 *
 * ```ts
 * fromStorageRecord(Hotel, { hotelId: 'h1', name: 'Sea View', rating: null, description: 'Quiet rooms' }, false);
 * ```
 */
export function fromStorageRecord<R>(definition: RecordDefinition<R>, storage: StorageRecord, includeVectors: boolean): R {
  const record: Record<string, unknown> = { [definition.key.name]: storedKey(definition, storage[definition.key.storageName]) };
  for (const property of definition.data) record[property.name] = readDataValue(property, storage[property.storageName]);
  if (includeVectors) {
    for (const property of definition.vectors) {
      const value = storage[property.storageName];
      record[property.name] = value instanceof Float32Array || Array.isArray(value) ? Float32Array.from(value as ArrayLike<number>) : null;
    }
  }
  return record as R;
}

/**
 * A stored key as the application wrote it: integer keys as numbers (stores may return them as
 * strings or bigints), uuid keys lowercased, string keys as they are.
 */
export function storedKey(definition: RecordDefinition<unknown>, value: unknown): KeyValue {
  if (definition.key.type === 'integer' && (typeof value === 'string' || typeof value === 'bigint')) return Number(value);
  if (definition.key.type === 'uuid' && typeof value === 'string') return value.toLowerCase();
  return value as KeyValue;
}

/**
 * Checks a vector (a stored one or a query) against its property: an array or `Float32Array`
 * of exactly `dimensions` finite numbers (after conversion to 32-bit floats), not all zeros
 * when the distance is cosine. Returns a `Float32Array` copy; throws `invalid_argument`.
 */
export function checkVectorValue(property: ResolvedVectorProperty, value: unknown, what: string): Float32Array {
  if (!(value instanceof Float32Array) && !(value instanceof Float64Array) && !Array.isArray(value)) {
    throw invalid(`${what} must be a Float32Array or an array of numbers`);
  }
  if (value.length !== property.dimensions) {
    throw invalid(`${what} has ${value.length} dimensions; ${property.name} has ${property.dimensions}`);
  }
  const vector = new Float32Array(property.dimensions);
  let zero = true;
  for (let i = 0; i < vector.length; i++) {
    const component = value[i];
    if (typeof component !== 'number') throw invalid(`${what} has a component that is not a number at ${i}`);
    vector[i] = component;
    if (!Number.isFinite(vector[i])) throw invalid(`${what} has a non-finite component at ${i} (as a 32-bit float)`);
    if (vector[i] !== 0) zero = false;
  }
  if (zero && property.distance === 'cosine') throw invalid(`${what} is all zeros, which has no cosine similarity`);
  return vector;
}

function checkKnownProperties(definition: RecordDefinition<unknown>, values: Record<string, unknown>, where: string): void {
  const known = new Set([definition.key.name, ...definition.data.map((p) => p.name), ...definition.vectors.map((p) => p.name)]);
  const unknown = Object.keys(values).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw invalid(`${where} has ${unknown.length === 1 ? 'a property' : 'properties'} the definition does not know: ${unknown.join(', ')}`);
  }
}

function checkDataValue(property: ResolvedDataProperty, value: unknown, where: string): unknown {
  const what = `${where}: ${property.name}`;
  if (value === undefined || value === null) {
    if (property.optional) return null;
    throw invalid(`${where} has no ${property.name}, which is required`);
  }
  switch (property.type) {
    case 'string':
      return checkText(value, what);
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${what} must be a finite number`);
      return value;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(`${what} must be a safe integer`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw invalid(`${what} must be true or false`);
      return value;
    case 'date': {
      const date = toDateValue(value);
      if (!date) throw invalid(`${what} must be a valid Date or an ISO-8601 date (2026-11-27 or 2026-11-27T10:00:00Z)`);
      return date;
    }
    case 'string[]':
      if (!Array.isArray(value)) throw invalid(`${what} must be an array of strings`);
      return value.map((element, i) => checkText(element, `${what}[${i}]`));
    default:
      if (!Array.isArray(value)) throw invalid(`${what} must be an array of numbers`);
      return value.map((element, i) => {
        if (typeof element !== 'number' || !Number.isFinite(element)) throw invalid(`${what}[${i}] must be a finite number`);
        return element;
      });
  }
}

function checkText(value: unknown, what: string): string {
  if (typeof value !== 'string') throw invalid(`${what} must be a string`);
  const reason = unstorableTextReason(value);
  if (reason) throw invalid(`${what} ${reason}`);
  return value;
}

function readDataValue(property: ResolvedDataProperty, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (property.type === 'date') return toDateValue(value) ?? (typeof value === 'number' ? new Date(value) : value);
  if (Array.isArray(value)) return [...value];
  return value;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message);
}
