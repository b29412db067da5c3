import type { DataPropertyType, RecordDefinition } from '@km/core';

/**
 * The JSON Schema keywords a tool's input schema uses: a subset of draft 2020-12 that MCP,
 * the AI SDK's `jsonSchema` and LangChain accept (no `$ref`, no recursion).
 */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
}

/** The value types a tool filter compares with (a key is a string or an integer). */
export type ToolFilterValueType = Exclude<DataPropertyType, 'string[]' | 'number[]'>;

/** A property the model may filter on, with the operators that apply to its type. */
export interface ToolFilterProperty {
  readonly name: string;
  readonly type: DataPropertyType;
  readonly operators: readonly ToolFilterOperator[];
}

/** Operators of one property condition. */
export type ToolFilterOperator = 'eq' | 'ne' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains';

const EQUALITY: readonly ToolFilterOperator[] = ['eq', 'ne', 'in'];
const RANGE: readonly ToolFilterOperator[] = ['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte'];
const DATE_HINT = 'an ISO-8601 date or date-time, e.g. 2026-11-27 or 2026-11-27T10:00:00Z';

/**
 * The properties a search tool lets the model filter on: the key and the filterable data
 * properties among `visible` (a model filters only on what it is shown), with their operators.
 *
 * ```ts
 * toolFilterProperties(Hotel, new Set(['name', 'rating'])); // [{ name: 'hotelId', ... }, { name: 'rating', type: 'number', operators: [...] }]
 * ```
 */
export function toolFilterProperties(definition: RecordDefinition<unknown>, visible: ReadonlySet<string>): ToolFilterProperty[] {
  const key: ToolFilterProperty = {
    name: definition.key.name,
    type: definition.key.type === 'integer' ? 'integer' : 'string',
    operators: EQUALITY,
  };
  const data = definition.data
    .filter((p) => p.filterable && visible.has(p.name))
    .map((p): ToolFilterProperty => ({ name: p.name, type: p.type, operators: operatorsOf(p.type) }));
  return [key, ...data];
}

/**
 * The input schema of a search tool: `query` (required), `top` (1 to `maxTop`) and `filter`:
 * one entry per property (a value, meaning equals, or an
 * object of operators), plus `or` (a list of such objects, any of which matches) and `not`.
 *
 * ```ts
 * searchToolInputSchema(toolFilterProperties(Hotel, visible), { top: 5, maxTop: 20 });
 * ```
 */
export function searchToolInputSchema(
  properties: readonly ToolFilterProperty[],
  limits: { readonly top: number; readonly maxTop: number },
): JsonSchema {
  return {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        minLength: 1,
        description: 'What to look for, in natural language; results are ranked by similarity to it.',
      },
      top: {
        type: 'integer',
        minimum: 1,
        maximum: limits.maxTop,
        description: `How many results to return (default ${limits.top}, at most ${limits.maxTop}).`,
      },
      filter: filterSchema(properties),
    },
    required: ['query'],
    additionalProperties: false,
  };
}

/** The filter's properties for its description: name, type and operators of each. */
function describeFilterProperties(properties: readonly ToolFilterProperty[]): string {
  return properties.map((p) => `${p.name} (${p.type}: ${p.operators.join(', ')})`).join('; ');
}

function filterSchema(properties: readonly ToolFilterProperty[]): JsonSchema {
  const conditions: Record<string, JsonSchema> = {};
  for (const property of properties) conditions[property.name] = propertySchema(property);
  const hasDate = properties.some((p) => p.type === 'date');
  const description = [
    'Conditions the results must all meet.',
    `Properties: ${describeFilterProperties(properties)}.`,
    'A property maps to a value (equals) or to an object of operators, e.g. {"<property>": {"gte": 4}}; "in" takes a list of values; "contains" matches a list property holding the value.',
    '"or": [{...}, {...}] matches when any of its objects matches; "not": {...} excludes what its object matches.',
    hasDate ? `Dates are ${DATE_HINT}.` : '',
  ]
    .filter((line) => line.length > 0)
    .join(' ');
  return {
    type: 'object',
    description,
    properties: {
      ...conditions,
      or: {
        type: 'array',
        description: 'Matches when any of these objects of conditions matches.',
        items: { type: 'object', properties: { ...conditions }, additionalProperties: false },
      },
      not: {
        type: 'object',
        description: 'Excludes the records these conditions match.',
        properties: { ...conditions },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
}

function propertySchema(property: ToolFilterProperty): JsonSchema {
  if (property.type === 'string[]' || property.type === 'number[]') {
    return {
      type: 'object',
      properties: { contains: valueSchema(property.type === 'string[]' ? 'string' : 'number') },
      required: ['contains'],
      additionalProperties: false,
    };
  }
  const value = valueSchema(property.type);
  const operators: Record<string, JsonSchema> = {};
  for (const op of property.operators) operators[op] = op === 'in' ? { type: 'array', items: value } : value;
  return { anyOf: [value, { type: 'object', properties: operators, additionalProperties: false, minProperties: 1 }] };
}

function valueSchema(type: ToolFilterValueType): JsonSchema {
  if (type === 'date') return { type: 'string', description: DATE_HINT };
  return { type };
}

function operatorsOf(type: DataPropertyType): readonly ToolFilterOperator[] {
  if (type === 'string[]' || type === 'number[]') return ['contains'];
  return type === 'number' || type === 'integer' || type === 'date' ? RANGE : EQUALITY;
}
