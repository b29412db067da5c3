import { InvalidInputError } from '@km/core';
import { toDateValue } from '@km/core/connector';
import type { ToolFilterProperty, ToolFilterValueType } from './search-tool-schema.js';

/** A search tool's input after checking. */
export interface SearchToolInput {
  readonly query: string;
  readonly top: number;
  /** The model's conditions, in the filter language, or undefined for none. */
  readonly filter: Record<string, unknown> | undefined;
}

/**
 * Checks what a model sent to a search tool against the tool's input schema, trusting nothing:
 * no unknown keys, `query` a non-empty string, `top` an integer from 1 to `maxTop`, `filter`
 * naming only the tool's filter properties with operators and values of their types. Throws
 * `InvalidInputError` (`invalid_argument`, or `invalid_filter` for the filter) with a message
 * that says what to send instead.
 *
 * ```ts
 * parseSearchToolInput({ query: 'sea view', filter: { rating: { gte: 4 } } }, properties, { top: 5, maxTop: 20 });
 * ```
 */
export function parseSearchToolInput(
  input: unknown,
  properties: readonly ToolFilterProperty[],
  limits: { readonly top: number; readonly maxTop: number },
): SearchToolInput {
  if (!isPlainObject(input)) throw invalid(`the input must be an object such as {"query": "..."}, got ${describe(input)}`);
  const allowed = ['query', 'top', 'filter'];
  const unknown = Object.keys(input).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw invalid(`the input has unknown ${plural(unknown, 'property', 'properties')} ${quoted(unknown)}; it takes ${quoted(allowed)}`);
  }
  const { query, top = limits.top, filter } = input;
  if (typeof query !== 'string' || query.trim().length === 0) throw invalid(`query must be a non-empty string, got ${describe(query)}`);
  if (typeof top !== 'number' || !Number.isInteger(top) || top < 1 || top > limits.maxTop) {
    throw invalid(`top must be an integer from 1 to ${limits.maxTop}, got ${describe(top)}`);
  }
  if (filter === undefined) return { query, top, filter: undefined };
  const byName = new Map(properties.map((p) => [p.name, p]));
  return { query, top, filter: checkConditions(filter, 'filter', byName, true) };
}

function checkConditions(
  value: unknown,
  path: string,
  properties: ReadonlyMap<string, ToolFilterProperty>,
  combinators: boolean,
): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalidFilter(`${path} must be an object of conditions, got ${describe(value)}`);
  for (const [name, condition] of Object.entries(value)) {
    const where = `${path}.${name}`;
    if (combinators && name === 'or') {
      if (!Array.isArray(condition)) throw invalidFilter(`${where} must be a list of objects of conditions, got ${describe(condition)}`);
      condition.forEach((item, i) => checkConditions(item, `${where}[${i}]`, properties, false));
      continue;
    }
    if (combinators && name === 'not') {
      checkConditions(condition, where, properties, false);
      continue;
    }
    const property = properties.get(name);
    if (!property) {
      const names = [...properties.keys(), ...(combinators ? ['or', 'not'] : [])];
      const nested = combinators ? '' : ' (or and not may not be nested)';
      throw invalidFilter(`${path} has unknown property "${name}"${nested}; use ${quoted(names)}`);
    }
    checkCondition(property, condition, where);
  }
  return value;
}

function checkCondition(property: ToolFilterProperty, condition: unknown, where: string): void {
  const list = property.type === 'string[]' || property.type === 'number[]';
  const element: ToolFilterValueType = property.type === 'string[]' ? 'string' : property.type === 'number[]' ? 'number' : property.type;
  if (!isPlainObject(condition)) {
    if (list) throw invalidFilter(`${where} is a list; filter it with {"contains": <a ${element}>}, got ${describe(condition)}`);
    checkValue(element, condition, where);
    return;
  }
  const ops = Object.keys(condition);
  if (ops.length === 0) throw invalidFilter(`${where} has no operator; use one of ${quoted(property.operators)}`);
  for (const op of ops) {
    const operand = condition[op];
    if (!(property.operators as readonly string[]).includes(op)) {
      throw invalidFilter(`${where} has operator "${op}", which does not apply to a ${property.type}; use ${quoted(property.operators)}`);
    }
    if (op === 'in') {
      if (!Array.isArray(operand)) throw invalidFilter(`${where}.in must be a list of values, got ${describe(operand)}`);
      operand.forEach((item, i) => checkValue(element, item, `${where}.in[${i}]`));
    } else {
      checkValue(element, operand, `${where}.${op}`);
    }
  }
}

function checkValue(type: ToolFilterValueType, value: unknown, where: string): void {
  if (value === null) throw invalidFilter(`${where} is null; compare with a value (to exclude records, use "not")`);
  const ok =
    type === 'string'
      ? typeof value === 'string'
      : type === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : type === 'integer'
          ? typeof value === 'number' && Number.isSafeInteger(value)
          : type === 'boolean'
            ? typeof value === 'boolean'
            : typeof value === 'string' && toDateValue(value) !== undefined;
  if (!ok) throw invalidFilter(`${where} must be ${expected(type)}, got ${describe(value)}`);
}

function expected(type: ToolFilterValueType): string {
  switch (type) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'integer':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    default:
      return 'an ISO-8601 date or date-time string (2026-11-27 or 2026-11-27T10:00:00Z)';
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

function quoted(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(', ');
}

function plural(items: readonly unknown[], one: string, many: string): string {
  return items.length === 1 ? one : many;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', `search tool: ${message}`);
}

function invalidFilter(message: string): InvalidInputError {
  return new InvalidInputError('invalid_filter', `search tool: ${message}`);
}
