import { InvalidInputError } from '@km/core';
import type { JsonSchema } from '@km/collections';
import { z } from 'zod';

/** The keywords {@link zodOfJsonSchema} understands: those of km's tool input schemas. */
const KNOWN_KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'items',
  'anyOf',
  'minimum',
  'maximum',
  'minLength',
]);

/**
 * A zod schema that accepts what a km tool input schema accepts and that the MCP SDK lists
 * back as that JSON Schema: the subset `collectionSearchTool` writes (objects with
 * `properties`/`required`/`additionalProperties: false`/`minProperties`, arrays with `items`,
 * `anyOf`, strings with `minLength`, numbers and integers with `minimum`/`maximum`, booleans,
 * descriptions). Any other keyword is refused (`invalid_argument`) rather than silently dropped.
 * The SDK's own listing adds only `$schema` and, on an unbounded integer, the safe-integer bounds.
 *
 * ```ts
 * const shape = zodOfJsonSchema({ type: 'object', properties: { query: { type: 'string', minLength: 1 } }, required: ['query'] });
 * shape.parse({ query: 'sea view' }); // ok; {} throws
 * ```
 */
export function zodOfJsonSchema(schema: JsonSchema, path = 'inputSchema'): z.ZodType {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw unsupported(path, 'is not a schema object');
  const unknown = Object.keys(schema).filter((k) => !KNOWN_KEYWORDS.has(k));
  if (unknown.length > 0) throw unsupported(path, `uses ${unknown.map((k) => `"${k}"`).join(', ')}`);
  const converted = withoutDescription(schema, path);
  return schema.description === undefined ? converted : converted.describe(schema.description);
}

function withoutDescription(schema: JsonSchema, path: string): z.ZodType {
  if (schema.anyOf !== undefined) {
    if (schema.type !== undefined || !Array.isArray(schema.anyOf) || schema.anyOf.length < 2) {
      throw unsupported(path, 'has an anyOf that is not a list of two or more schemas without a type beside it');
    }
    const branches = schema.anyOf.map((branch, i) => zodOfJsonSchema(branch, `${path}.anyOf[${i}]`));
    const expected = schema.anyOf.map(summary).join(', or ');
    return z.union(branches as [z.ZodType, z.ZodType, ...z.ZodType[]], { error: () => `expected ${expected}` });
  }
  switch (schema.type) {
    case 'object':
      return objectSchema(schema, path);
    case 'array':
      if (schema.items === undefined) throw unsupported(path, 'is an array without items');
      return z.array(zodOfJsonSchema(schema.items, `${path}.items`));
    case 'string': {
      let string = z.string();
      if (schema.minLength !== undefined) string = string.min(schema.minLength);
      return string;
    }
    case 'number':
    case 'integer': {
      let number = schema.type === 'integer' ? z.number().int() : z.number();
      if (schema.minimum !== undefined) number = number.min(schema.minimum);
      if (schema.maximum !== undefined) number = number.max(schema.maximum);
      return number;
    }
    case 'boolean':
      return z.boolean();
    default:
      throw unsupported(path, `has type ${JSON.stringify(schema.type)}`);
  }
}

function objectSchema(schema: JsonSchema, path: string): z.ZodType {
  const required = new Set(schema.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const value = zodOfJsonSchema(property, `${path}.properties.${name}`);
    shape[name] = required.has(name) ? value : value.optional();
  }
  const missing = [...required].filter((name) => !(name in shape));
  if (missing.length > 0) throw unsupported(path, `requires ${missing.join(', ')} without describing them`);
  const object = schema.additionalProperties === false ? z.strictObject(shape) : z.looseObject(shape);
  const least = schema.minProperties;
  if (least === undefined) return object;
  return object
    .refine((value) => Object.keys(value).length >= least, { error: `expected at least ${least} of ${Object.keys(shape).join(', ')}` })
    .meta({ minProperties: least });
}

/** What a value of the schema looks like, for error messages: "a number", "an object with eq, ne, in". */
function summary(schema: JsonSchema): string {
  if (schema.type === 'object') return `an object with ${Object.keys(schema.properties ?? {}).join(', ') || 'any properties'}`;
  if (schema.type === 'array') return 'a list';
  if (schema.type === 'integer') return 'an integer';
  return schema.type === undefined ? 'a value' : `a ${schema.type}`;
}

function unsupported(path: string, problem: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', `${path} ${problem}; MCP tools take the JSON Schema subset of km's tool schemas`);
}
