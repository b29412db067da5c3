import type { MemoryFilterJson } from '@km/wire';
import { InvalidInputError } from '../errors/km-error.js';
import { RESERVED_TAG_KEYS, RESERVED_TAG_PREFIX, ReservedTags } from './constants.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';
import type { TagCollection } from './tag-collection.js';

/** One condition of a filter: equality on a tag value, optionally negated. */
export interface TagCondition {
  readonly key: string;
  readonly value: string | null;
  /** NOT: no value of `key` equals `value` (a record without the key matches). */
  readonly negated: boolean;
}

/** Marks every MemoryFilter, whichever copy of `@km/core` made it. */
const MEMORY_FILTER_BRAND = Symbol.for('@km/core.MemoryFilter');

function checkFilterKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new InvalidInputError('invalid_filter', 'filter key must be a non-empty string');
  }
  const unstorable = unstorableTextReason(key);
  if (unstorable) throw new InvalidInputError('invalid_filter', `filter key ${JSON.stringify(key)} ${unstorable}`);
  if (key.includes(':') || key.includes('=')) {
    throw new InvalidInputError('invalid_filter', `filter key ${JSON.stringify(key)} may not contain ':' or '='`);
  }
  if (key.startsWith(RESERVED_TAG_PREFIX) && !RESERVED_TAG_KEYS.has(key)) {
    throw new InvalidInputError(
      'invalid_filter',
      `filter key ${JSON.stringify(key)} is not a reserved tag; reserved tags are ${[...RESERVED_TAG_KEYS].join(', ')}`,
    );
  }
  return key;
}

function checkFilterValue(key: string, value: unknown): string | null {
  if (value !== null && typeof value !== 'string') {
    throw new InvalidInputError('invalid_filter', `filter value of ${JSON.stringify(key)} must be a string or null`);
  }
  const unstorable = value === null ? undefined : unstorableTextReason(value);
  // No record can hold such a value, and some backends answer it with a raw driver error.
  if (unstorable) throw new InvalidInputError('invalid_filter', `filter value of ${JSON.stringify(key)} ${unstorable}`);
  return value;
}

/**
 * A conjunction of tag conditions (AND inside one filter). A list of filters is a
 * disjunction (OR across the list); an empty filter or an empty list matches everything.
 * Filters are immutable: each method returns a new filter.
 *
 * ```ts
 * const f = MemoryFilters.byTag('user', 'alice').byTag('type', 'news').notTag('status', 'draft');
 * await memory.search('moon landing', { filters: [f, MemoryFilters.byDocument('doc-2')] });
 * ```
 */
export class MemoryFilter {
  readonly conditions: readonly TagCondition[];

  constructor(conditions: readonly TagCondition[] = []) {
    this.conditions = conditions.map((c) => {
      const key = checkFilterKey(c.key);
      return Object.freeze({ key, value: checkFilterValue(key, c.value), negated: c.negated === true });
    });
    Object.freeze(this.conditions);
    Object.defineProperty(this, MEMORY_FILTER_BRAND, { value: true });
  }

  /**
   * `instanceof` also holds for filters of another copy of `@km/core` (a connector plugin
   * installed with its own), which the pipeline hands to that plugin's memory DB: they carry a
   * global brand. Plain wire-form objects (`{ "user": "alice" }`) do not.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    return typeof value === 'object' && value !== null && MEMORY_FILTER_BRAND in value;
  }

  /** Adds an equality condition: the record has `key` with `value` among its values. */
  byTag(key: string, value: string | null): MemoryFilter {
    return new MemoryFilter([...this.conditions, { key, value, negated: false }]);
  }

  /** Adds a NOT condition: no value of `key` equals `value`. */
  notTag(key: string, value: string | null): MemoryFilter {
    return new MemoryFilter([...this.conditions, { key, value, negated: true }]);
  }

  /** Adds a condition on the document id. */
  byDocument(documentId: string): MemoryFilter {
    return this.byTag(ReservedTags.documentId, documentId);
  }

  /** True when the filter has no condition (matches everything). */
  isEmpty(): boolean {
    return this.conditions.length === 0;
  }

  /** Equality conditions grouped by key, Kernel Memory's wire form (NOT conditions omitted). */
  toTagCollection(): TagCollection {
    const out: TagCollection = {};
    for (const c of this.conditions) if (!c.negated) (out[c.key] ??= []).push(c.value);
    return out;
  }

  /**
   * Builds a filter from Kernel Memory's wire form `{"key": ["v1", "v2"]}` (AND of all pairs)
   * plus km's NOT form `{"!key": ["v"]}`. Throws `invalid_filter` on anything else.
   */
  static fromJSON(json: unknown): MemoryFilter {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      throw new InvalidInputError('invalid_filter', 'a filter must be an object of key → list of values');
    }
    const conditions: TagCondition[] = [];
    for (const [rawKey, raw] of Object.entries(json as Record<string, unknown>)) {
      const negated = rawKey.startsWith('!');
      const key = negated ? rawKey.slice(1) : rawKey;
      const values = Array.isArray(raw) ? raw : [raw];
      for (const value of values) conditions.push({ key, value: value as string | null, negated });
    }
    return new MemoryFilter(conditions);
  }

  /** The filter's JSON form in `filters` of `POST /search` and `POST /ask`. */
  toJSON(): MemoryFilterJson {
    const out: MemoryFilterJson = {};
    for (const c of this.conditions) (out[(c.negated ? '!' : '') + c.key] ??= []).push(c.value);
    return out;
  }
}

/** Entry points for building filters, as in Kernel Memory. */
export const MemoryFilters = {
  /** Records tagged `key:value`. */
  byTag: (key: string, value: string | null): MemoryFilter => new MemoryFilter().byTag(key, value),
  /** Records not tagged `key:value`. */
  notTag: (key: string, value: string | null): MemoryFilter => new MemoryFilter().notTag(key, value),
  /** Records of one document. */
  byDocument: (documentId: string): MemoryFilter => new MemoryFilter().byDocument(documentId),
} as const;

/** True when `tags` satisfies one condition. */
export function matchesCondition(tags: TagCollection, condition: TagCondition): boolean {
  const has = tags[condition.key]?.includes(condition.value) ?? false;
  return condition.negated ? !has : has;
}

/**
 * True when `tags` satisfies the list of filters: OR across filters, AND inside one;
 * an empty list, or an empty filter in it, matches everything. This is the reference
 * semantics every connector must reproduce.
 */
export function matchesFilters(tags: TagCollection, filters: readonly MemoryFilter[] | undefined): boolean {
  if (!filters || filters.length === 0) return true;
  return filters.some((f) => f.conditions.every((c) => matchesCondition(tags, c)));
}

/**
 * Normalises what callers pass as filters: MemoryFilter instances or wire-form objects.
 * Throws `invalid_filter` on anything else.
 */
export function toMemoryFilters(filters: unknown): MemoryFilter[] {
  if (filters === undefined || filters === null) return [];
  if (!Array.isArray(filters)) {
    throw new InvalidInputError('invalid_filter', 'filters must be a list');
  }
  return filters.map((f) => (f instanceof MemoryFilter ? f : MemoryFilter.fromJSON(f)));
}
