import type { ResolvedDataProperty } from '@km/core/connector';

/** A value that `JSON.stringify` writes and `JSON.parse` reads back unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * The chosen data properties of a record as JSON values: dates as ISO-8601 strings, lists
 * copied, missing values as null. Vectors are never included.
 *
 * ```ts
 * toJsonRecord({ name: 'Sea View', openedAt: new Date('2020-05-01') }, [name, openedAt]);
 * // { name: 'Sea View', openedAt: '2020-05-01T00:00:00.000Z' }
 * ```
 */
export function toJsonRecord(
  record: Readonly<Record<string, unknown>>,
  properties: readonly ResolvedDataProperty[],
): Record<string, JsonValue> {
  const json: Record<string, JsonValue> = {};
  for (const property of properties) json[property.name] = toJsonValue(record[property.name]);
  return json;
}

function toJsonValue(value: unknown): JsonValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return String(value);
}
