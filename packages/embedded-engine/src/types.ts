/**
 * The engine's own shapes of what its callers hand it. They are structural: `@km/core`'s
 * `MemoryFilter`, `TagCollection` and `Logger` are assignable to them, so core passes its
 * objects without copying, and the engine does not depend on core.
 */

/** A record's tags: key → values (a value may be null). */
export type Tags = Record<string, Array<string | null>>;

/** One condition of a {@link TagFilter}: the record has `key` with `value` (or, negated, does not). */
export interface TagCondition {
  readonly key: string;
  readonly value: string | null;
  /** NOT: no value of `key` equals `value` (a record without the key matches). */
  readonly negated: boolean;
}

/**
 * A conjunction of tag conditions (AND inside one filter). A list of filters is a disjunction
 * (OR across the list); an empty filter or an empty list matches everything.
 */
export interface TagFilter {
  readonly conditions: readonly TagCondition[];
}

/** Where the engine reports what it does (compatible with `console` and most structured loggers). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
