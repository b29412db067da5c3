import { InvalidInputError } from '../errors/km-error.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';
import type {
  DataPropertyDefinition,
  DataPropertyType,
  DistanceFunction,
  KeyType,
  RecordDefinition,
  RecordDefinitionInput,
  RecordOf,
  ResolvedDataProperty,
  ResolvedKeyProperty,
  ResolvedVectorProperty,
  VectorPropertyDefinition,
} from './record-definition-types.js';

/** Key types a definition may use. */
export const KEY_TYPES: readonly KeyType[] = Object.freeze(['string', 'integer', 'uuid']);
/** Data property types a definition may use. */
export const DATA_PROPERTY_TYPES: readonly DataPropertyType[] = Object.freeze([
  'string',
  'number',
  'integer',
  'boolean',
  'date',
  'string[]',
  'number[]',
]);
/** Distance functions a vector may use. */
export const DISTANCE_FUNCTIONS: readonly DistanceFunction[] = Object.freeze(['cosine', 'dot', 'euclidean']);
/** Largest vector a definition may declare. */
export const MAX_VECTOR_DIMENSIONS = 65536;
/** Longest storage name, in characters. */
export const MAX_STORAGE_NAME_LENGTH = 128;

const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_NAMES = new Set(['and', 'or', 'not']);
/** Assigning it sets an object's prototype instead of a property, so records could not hold it. */
const PROTOTYPE_NAME = '__proto__';
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const KEY_OPTIONS = new Set(['name', 'type', 'storageName']);
const DATA_OPTIONS = new Set(['type', 'filterable', 'fullText', 'optional', 'storageName']);
const VECTOR_OPTIONS = new Set(['dimensions', 'distance', 'embed', 'optional', 'storageName']);

/**
 * Checks a record definition and resolves its defaults (key type `string`, storage names equal
 * to property names, distance `cosine`). The record type is inferred from the input, so write
 * the input inline (or `as const`). Throws `invalid_argument` naming the property at fault.
 *
 * ```ts
 * const Hotel = defineRecord({
 *   key: 'hotelId',
 *   data: {
 *     name: { type: 'string', filterable: true },
 *     rating: { type: 'number', filterable: true, optional: true },
 *     description: { type: 'string' },
 *   },
 *   vectors: { descriptionEmbedding: { dimensions: 384, embed: 'description' } },
 * });
 * type Hotel = RecordType<typeof Hotel>; // { hotelId: string; name: string; rating?: number | null; ... }
 * ```
 */
export function defineRecord<const I extends RecordDefinitionInput>(input: I): RecordDefinition<RecordOf<I>> {
  if (!isObject(input)) throw invalid('a record definition must be an object with key and vectors');
  const key = resolveKey(input.key);
  const dataInput = input.data ?? {};
  if (!isObject(dataInput)) throw invalid('data must be an object of property definitions');
  const data = Object.entries(dataInput).map(([name, definition]) => resolveData(name, definition));
  if (!isObject(input.vectors)) throw invalid('vectors must be an object of vector definitions');
  const vectors = Object.entries(input.vectors).map(([name, definition]) => resolveVector(name, definition, data));
  if (vectors.length === 0) throw invalid('a record definition needs at least one vector property');
  checkUnique([key, ...data, ...vectors]);
  const definition: RecordDefinition<RecordOf<I>> = {
    key: Object.freeze(key),
    data: Object.freeze(data.map((p) => Object.freeze(p))),
    vectors: Object.freeze(vectors.map((p) => Object.freeze(p))),
    embeddingGenerator: input.embeddingGenerator,
  };
  return Object.freeze(definition);
}

function resolveKey(key: unknown): ResolvedKeyProperty {
  if (typeof key === 'string') {
    checkName(key, 'key');
    return { kind: 'key', name: key, storageName: key, type: 'string', storageNameGiven: false };
  }
  const name = isObject(key) ? key.name : undefined;
  if (!isObject(key) || typeof name !== 'string') {
    throw invalid('key must be a property name or { name, type?, storageName? }');
  }
  checkName(name, 'key');
  checkOptions(key, KEY_OPTIONS, `key "${name}"`);
  const type = key.type ?? 'string';
  if (!KEY_TYPES.includes(type as KeyType)) {
    throw invalid(`key "${name}" has type ${String(type)}; key types are ${KEY_TYPES.join(', ')}`);
  }
  const storageName = resolveStorageName(key.storageName, name, `key "${name}"`);
  return { kind: 'key', name, storageName, type: type as KeyType, storageNameGiven: key.storageName !== undefined };
}

function resolveData(name: string, definition: DataPropertyDefinition): ResolvedDataProperty {
  checkName(name, 'data property');
  const what = `data property "${name}"`;
  if (!isObject(definition)) throw invalid(`${what} must be an object with a type`);
  checkOptions(definition, DATA_OPTIONS, what);
  if (!DATA_PROPERTY_TYPES.includes(definition.type)) {
    throw invalid(`${what} has type ${String(definition.type)}; data types are ${DATA_PROPERTY_TYPES.join(', ')}`);
  }
  return {
    kind: 'data',
    name,
    storageName: resolveStorageName(definition.storageName, name, what),
    type: definition.type,
    filterable: flag(definition.filterable, what, 'filterable'),
    fullText: flag(definition.fullText, what, 'fullText'),
    optional: flag(definition.optional, what, 'optional'),
  };
}

function resolveVector(name: string, definition: VectorPropertyDefinition, data: readonly ResolvedDataProperty[]): ResolvedVectorProperty {
  checkName(name, 'vector property');
  const what = `vector property "${name}"`;
  if (!isObject(definition)) throw invalid(`${what} must be an object with dimensions`);
  checkOptions(definition, VECTOR_OPTIONS, what);
  const { dimensions } = definition;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_VECTOR_DIMENSIONS) {
    throw invalid(`${what} has ${String(dimensions)} dimensions; it needs an integer from 1 to ${MAX_VECTOR_DIMENSIONS}`);
  }
  const distance = definition.distance ?? 'cosine';
  if (!DISTANCE_FUNCTIONS.includes(distance)) {
    throw invalid(`${what} has distance ${String(distance)}; distances are ${DISTANCE_FUNCTIONS.join(', ')}`);
  }
  const { embed } = definition;
  if (embed !== undefined) {
    const source = data.find((p) => p.name === embed);
    if (!source || source.type !== 'string') {
      throw invalid(`${what} embeds "${String(embed)}", which is not a string data property`);
    }
  }
  return {
    kind: 'vector',
    name,
    storageName: resolveStorageName(definition.storageName, name, what),
    dimensions,
    distance,
    embed,
    optional: flag(definition.optional, what, 'optional'),
  };
}

function checkName(name: string, what: string): void {
  if (!PROPERTY_NAME.test(name)) {
    throw invalid(`${what} name "${name}" must start with a letter or _ and hold only letters, digits and _`);
  }
  if (RESERVED_NAMES.has(name)) throw invalid(`${what} name "${name}" is reserved by the filter language (and, or, not)`);
  if (name === PROTOTYPE_NAME) throw invalid(`${what} name "${name}" cannot be a property of a plain object`);
}

function resolveStorageName(storageName: unknown, name: string, what: string): string {
  if (storageName === undefined) return name;
  if (typeof storageName !== 'string') throw invalid(`${what} has a storage name that is not a string`);
  const length = [...storageName].length;
  if (length < 1 || length > MAX_STORAGE_NAME_LENGTH) {
    throw invalid(`${what} has a storage name of ${length} characters; it needs 1 to ${MAX_STORAGE_NAME_LENGTH}`);
  }
  if (storageName === PROTOTYPE_NAME)
    throw invalid(`${what} has the storage name ${PROTOTYPE_NAME}, which cannot be a property of a plain object`);
  const reason = CONTROL_CHARACTER.test(storageName) ? 'contains a control character' : unstorableTextReason(storageName);
  if (reason) throw invalid(`${what} has a storage name that ${reason}`);
  return storageName;
}

function checkUnique(properties: readonly { name: string; storageName: string }[]): void {
  const names = new Set<string>();
  const storageNames = new Set<string>();
  for (const p of properties) {
    if (names.has(p.name)) throw invalid(`property "${p.name}" is defined twice (key, data and vector names must differ)`);
    names.add(p.name);
    if (storageNames.has(p.storageName)) {
      throw invalid(`property "${p.name}" has storage name "${p.storageName}", which another property uses`);
    }
    storageNames.add(p.storageName);
  }
}

function checkOptions(definition: object, allowed: ReadonlySet<string>, what: string): void {
  for (const option of Object.keys(definition)) {
    if (!allowed.has(option)) throw invalid(`${what} has an unknown option "${option}" (options: ${[...allowed].join(', ')})`);
  }
}

function flag(value: unknown, what: string, option: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalid(`${what}: ${option} must be true or false`);
  return value;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message);
}
