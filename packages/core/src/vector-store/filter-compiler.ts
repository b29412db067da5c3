import { InvalidInputError } from '../errors/km-error.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';
import { toDateValue } from './date-value.js';
import type { RecordDefinition, ResolvedDataProperty } from './record-definition-types.js';
import { keyProblem } from './record-key.js';
import type { FilterNode, FilterOperator, FilterProperty, FilterScalar } from './vector-store-filter-types.js';

/** Deepest nesting of filter objects (`and`, `or`, `not` each add a level). */
export const MAX_FILTER_DEPTH = 16;
/** Most conditions in one filter. */
export const MAX_FILTER_CONDITIONS = 1024;
/** Most values in one `in` list. */
export const MAX_FILTER_IN_VALUES = 1024;

const SCALAR_OPERATORS = ['eq', 'ne', 'in'] as const;
const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;
const COMBINATORS = new Set(['and', 'or', 'not']);
type PropertyOperator = (typeof SCALAR_OPERATORS)[number] | (typeof RANGE_OPERATORS)[number] | 'contains';

/**
 * Checks a filter of the object language against a definition and returns the node drivers
 * translate, or undefined for no filter (`undefined` or `{}`: every record matches). Property
 * names must be the key or `filterable` data properties, operators must suit the property's
 * type and values must be of it (dates as `Date` or ISO-8601 strings, turned into `Date`s).
 * Entries whose value is `undefined` are left out (as in an object spread). Throws
 * `invalid_filter` naming the problem. Strings are values, never syntax.
 *
 * ```ts
 * compileFilter(Hotel, { rating: { gte: 4 }, city: 'Paris' });
 * // { op: 'and', nodes: [{ op: 'gte', property: rating, value: 4 }, { op: 'eq', property: city, value: 'Paris' }] }
 * ```
 */
export function compileFilter(definition: RecordDefinition<unknown>, filter: unknown): FilterNode | undefined {
  if (filter === undefined || filter === null) return undefined;
  const compiler = new FilterCompiler(definition);
  const node = compiler.compileObject(filter, 1, 'filter');
  return node.op === 'and' && node.nodes.length === 0 ? undefined : node;
}

/**
 * The operators a node uses, so a store can refuse the ones its backend cannot translate.
 *
 * ```ts
 * filterOperatorsOf({ op: 'not', node: { op: 'eq', property, value: 1 } }); // Set { 'not', 'eq' }
 * ```
 */
export function filterOperatorsOf(node: FilterNode | undefined, into = new Set<FilterOperator>()): Set<FilterOperator> {
  if (!node) return into;
  into.add(node.op);
  if (node.op === 'and' || node.op === 'or') for (const child of node.nodes) filterOperatorsOf(child, into);
  else if (node.op === 'not') filterOperatorsOf(node.node, into);
  return into;
}

class FilterCompiler {
  private conditions = 0;
  private readonly properties = new Map<string, FilterProperty>();
  private readonly unfilterable = new Set<string>();

  constructor(definition: RecordDefinition<unknown>) {
    this.properties.set(definition.key.name, definition.key);
    for (const p of definition.data) {
      if (p.filterable) this.properties.set(p.name, p);
      else this.unfilterable.add(p.name);
    }
    for (const v of definition.vectors) this.unfilterable.add(v.name);
  }

  compileObject(filter: unknown, depth: number, where: string): FilterNode {
    if (depth > MAX_FILTER_DEPTH) throw invalidFilter(`${where} nests deeper than ${MAX_FILTER_DEPTH} levels`);
    if (!isPlainObject(filter)) throw invalidFilter(`${where} must be an object of conditions`);
    const nodes: FilterNode[] = [];
    for (const [name, value] of Object.entries(filter)) {
      if (value === undefined) continue;
      nodes.push(COMBINATORS.has(name) ? this.compileCombinator(name, value, depth) : this.compileProperty(name, value));
    }
    return nodes.length === 1 ? nodes[0]! : { op: 'and', nodes };
  }

  private compileCombinator(op: string, value: unknown, depth: number): FilterNode {
    if (op === 'not') return { op: 'not', node: this.compileObject(value, depth + 1, 'not') };
    if (!Array.isArray(value)) throw invalidFilter(`${op} takes an array of filter objects`);
    const nodes = value.map((item, i) => this.compileObject(item, depth + 1, `${op}[${i}]`));
    return { op: op as 'and' | 'or', nodes };
  }

  private compileProperty(name: string, value: unknown): FilterNode {
    const property = this.propertyNamed(name);
    if (isOperatorObject(value)) {
      const nodes = Object.entries(value)
        .filter(([, operand]) => operand !== undefined)
        .map(([op, operand]) => this.compileCondition(property, op, operand));
      if (nodes.length === 0) throw invalidFilter(`property ${name} has no operator; operators: ${operatorsFor(property).join(', ')}`);
      return nodes.length === 1 ? nodes[0]! : { op: 'and', nodes };
    }
    return this.compileCondition(property, 'eq', value);
  }

  private compileCondition(property: FilterProperty, op: string, operand: unknown): FilterNode {
    const allowed = operatorsFor(property);
    if (!allowed.includes(op as PropertyOperator)) {
      const known = isPropertyOperator(op);
      throw invalidFilter(
        `${known ? `operator ${op} does not apply to` : `unknown operator "${op}" on`} property ${property.name} (${typeOf(property)}); operators: ${allowed.join(', ')}`,
      );
    }
    if (++this.conditions > MAX_FILTER_CONDITIONS) throw invalidFilter(`more than ${MAX_FILTER_CONDITIONS} conditions`);
    if (op === 'contains') {
      return { op: 'contains', property: property as ResolvedDataProperty, value: this.elementValue(property, operand) as string | number };
    }
    if (op === 'in') {
      if (!Array.isArray(operand)) throw invalidFilter(`${property.name}: in takes an array of values`);
      if (operand.length > MAX_FILTER_IN_VALUES) {
        throw invalidFilter(`${property.name}: in has ${operand.length} values; at most ${MAX_FILTER_IN_VALUES}`);
      }
      return { op: 'in', property, values: operand.map((v) => this.scalarValue(property, v, 'in')) };
    }
    return { op: op as 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte', property, value: this.scalarValue(property, operand, op) };
  }

  private propertyNamed(name: string): FilterProperty {
    const property = this.properties.get(name);
    if (property) return property;
    const filterable = [...this.properties.keys()].join(', ');
    if (this.unfilterable.has(name)) {
      throw invalidFilter(`property ${name} is not filterable (mark it filterable: true); filterable properties: ${filterable}`);
    }
    throw invalidFilter(`unknown property ${JSON.stringify(name)}; filterable properties: ${filterable}`);
  }

  private scalarValue(property: FilterProperty, value: unknown, op: string): FilterScalar {
    const type = typeOf(property);
    const fail = (expected: string, reason?: string): never => {
      throw invalidFilter(`${property.name} ${op}: ${reason ?? `expects ${expected}, got ${describe(value)}`}`);
    };
    if (value === null) return fail('', 'null is not a value; a condition on a missing or null value is false (use ne or not)');
    if (property.kind === 'key') {
      const problem = keyProblem(property, value);
      if (problem) return fail('', `${describe(value)} ${problem}`);
      return property.type === 'uuid' ? (value as string).toLowerCase() : (value as string | number);
    }
    switch (type) {
      case 'string':
        if (typeof value !== 'string') return fail('a string');
        return this.text(property, value as string, op);
      case 'number':
        return typeof value === 'number' && Number.isFinite(value) ? value : fail('a finite number');
      case 'integer':
        return typeof value === 'number' && Number.isSafeInteger(value) ? value : fail('a safe integer');
      case 'boolean':
        return typeof value === 'boolean' ? value : fail('true or false');
      default:
        return toDateValue(value) ?? fail('a Date or an ISO-8601 date (2026-11-27 or 2026-11-27T10:00:00Z)');
    }
  }

  private elementValue(property: FilterProperty, value: unknown): string | number {
    if (typeOf(property) === 'string[]') {
      if (typeof value !== 'string') throw invalidFilter(`${property.name} contains: expects a string, got ${describe(value)}`);
      return this.text(property, value, 'contains');
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw invalidFilter(`${property.name} contains: expects a finite number, got ${describe(value)}`);
    }
    return value;
  }

  private text(property: FilterProperty, value: string, op: string): string {
    const reason = unstorableTextReason(value);
    if (reason) throw invalidFilter(`${property.name} ${op}: the value ${reason}`);
    return value;
  }
}

function operatorsFor(property: FilterProperty): readonly PropertyOperator[] {
  const type = typeOf(property);
  if (type === 'string[]' || type === 'number[]') return ['contains'];
  if (type === 'number' || type === 'integer' || type === 'date') return [...SCALAR_OPERATORS, ...RANGE_OPERATORS];
  return SCALAR_OPERATORS;
}

function typeOf(property: FilterProperty): string {
  if (property.kind === 'data') return property.type;
  return property.type === 'integer' ? 'integer' : `${property.type} key`;
}

function isPropertyOperator(op: string): boolean {
  return (SCALAR_OPERATORS as readonly string[]).includes(op) || (RANGE_OPERATORS as readonly string[]).includes(op) || op === 'contains';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An object of operators, as opposed to a value compared for equality. */
function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'an invalid Date';
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (typeof value === 'number') return String(value);
  return typeof value;
}

function invalidFilter(message: string): InvalidInputError {
  return new InvalidInputError('invalid_filter', message);
}
