import type { ResolvedDataProperty, ResolvedKeyProperty } from './record-definition-types.js';

/**
 * The one filter language of typed collections, written as an object: the entries of one object
 * are ANDed; `and`, `or` and `not` combine objects. A property maps to a value (equality) or to
 * operators. Only `filterable` data properties and the key may be named.
 *
 * ```ts
 * { rating: { gte: 4 }, tags: { contains: 'pool' }, or: [{ city: 'Paris' }, { city: { in: ['Rome', 'Oslo'] } }] }
 * ```
 *
 * Semantics (the same on every store, checked by `describeVectorStore`):
 * - a comparison on a missing or null value is false;
 * - `ne: x` is `not: { eq: x }`, so it matches records without the property;
 * - `not` is the boolean complement;
 * - `contains` applies to `string[]` and `number[]` properties: some element equals the value;
 * - ranges (`gt`, `gte`, `lt`, `lte`) apply to numbers, integers and dates (strings are refused);
 * - `in` with an empty list matches nothing; `and: []` matches everything, `or: []` nothing.
 */
export type VectorStoreFilter<R = Record<string, unknown>> = {
  [P in Extract<keyof R, string>]?: FilterValue<NonNullable<R[P]>> | FilterOperators<NonNullable<R[P]>>;
} & {
  and?: readonly VectorStoreFilter<R>[];
  or?: readonly VectorStoreFilter<R>[];
  not?: VectorStoreFilter<R>;
};

type FilterValue<T> = T extends readonly unknown[] ? never : T extends Date ? Date | string : T;
type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

export interface FilterOperators<T> {
  eq?: FilterValue<T>;
  ne?: FilterValue<T>;
  in?: readonly FilterValue<T>[];
  gt?: FilterValue<T>;
  gte?: FilterValue<T>;
  lt?: FilterValue<T>;
  lte?: FilterValue<T>;
  contains?: ElementOf<T>;
}

/** A scalar a filter compares with, after checking: dates are `Date`s. */
export type FilterScalar = string | number | boolean | Date;

/** The property a condition reads: the key or a filterable data property. */
export type FilterProperty = ResolvedKeyProperty | ResolvedDataProperty;

/**
 * A checked filter as drivers receive it: property names resolved against the definition
 * (drivers use `property.storageName`), values checked against the property's type. Drivers
 * translate it natively, or throw `unsupportedFilter(...)` for a node they cannot express.
 */
export type FilterNode =
  | { readonly op: 'and' | 'or'; readonly nodes: readonly FilterNode[] }
  | { readonly op: 'not'; readonly node: FilterNode }
  | {
      readonly op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
      readonly property: FilterProperty;
      readonly value: FilterScalar;
    }
  | { readonly op: 'in'; readonly property: FilterProperty; readonly values: readonly FilterScalar[] }
  | { readonly op: 'contains'; readonly property: ResolvedDataProperty; readonly value: string | number };

/** The operators of {@link FilterNode}. */
export type FilterOperator = FilterNode['op'];
