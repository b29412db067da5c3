import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';

/**
 * Types of the typed vector-store collections (the record-definition design that Semantic
 * Kernel drew up after Kernel Memory's fixed `IMemoryDb` schema): an application describes its
 * own records once with {@link defineRecord} and every connector stores them in their own shape.
 */

/** Types a key may have. A store lists the ones it can hold in `VectorStoreDriver.keyTypes`. */
export type KeyType = 'string' | 'integer' | 'uuid';

/** Types of data properties. `date` values are `Date`s (ISO strings are accepted on input). */
export type DataPropertyType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'string[]' | 'number[]';

/**
 * How vectors are compared, and the score each reports (one convention per function):
 * - `cosine`: cosine similarity in [-1, 1], higher is closer;
 * - `dot`: dot product, higher is closer;
 * - `euclidean`: Euclidean (L2) distance, >= 0, lower is closer.
 */
export type DistanceFunction = 'cosine' | 'dot' | 'euclidean';

/** The key property: its name, or its name with a type and a storage name. */
export type KeyDefinition =
  | string
  | {
      readonly name: string;
      /** @default 'string' */
      readonly type?: KeyType;
      /** The column or field that holds it in the backend. @default name (or the store's own key field) */
      readonly storageName?: string;
    };

export interface DataPropertyDefinition {
  readonly type: DataPropertyType;
  /** Usable in filters. Stores may index it. @default false */
  readonly filterable?: boolean;
  /** Indexed for full-text search where the store can. @default false */
  readonly fullText?: boolean;
  /** A record may leave it out or set it to null. @default false */
  readonly optional?: boolean;
  /** The column or field that holds it in the backend. @default the property name */
  readonly storageName?: string;
}

export interface VectorPropertyDefinition {
  readonly dimensions: number;
  /** @default 'cosine' */
  readonly distance?: DistanceFunction;
  /**
   * The string data property this vector embeds. When set, a record upserted without this
   * vector gets it from the collection's embedding generator, and a text search on this vector
   * embeds the query with the same generator.
   */
  readonly embed?: string;
  /** A record may leave it out (it is then not found by searches on this vector). @default false */
  readonly optional?: boolean;
  /** The column or field that holds it in the backend. @default the property name */
  readonly storageName?: string;
}

/** What {@link defineRecord} takes. */
export interface RecordDefinitionInput {
  readonly key: KeyDefinition;
  readonly data?: Readonly<Record<string, DataPropertyDefinition>>;
  readonly vectors: Readonly<Record<string, VectorPropertyDefinition>>;
  /** Embeds the `embed` sources and text queries; a collection may be given its own instead. */
  readonly embeddingGenerator?: ITextEmbeddingGenerator;
}

/** A data property as stores see it: name, storage name and type resolved. */
export interface ResolvedDataProperty {
  readonly kind: 'data';
  readonly name: string;
  readonly storageName: string;
  readonly type: DataPropertyType;
  readonly filterable: boolean;
  readonly fullText: boolean;
  readonly optional: boolean;
}

/** A vector property as stores see it. */
export interface ResolvedVectorProperty {
  readonly kind: 'vector';
  readonly name: string;
  readonly storageName: string;
  readonly dimensions: number;
  readonly distance: DistanceFunction;
  readonly embed: string | undefined;
  readonly optional: boolean;
}

/** The key property as stores see it. */
export interface ResolvedKeyProperty {
  readonly kind: 'key';
  readonly name: string;
  readonly storageName: string;
  readonly type: KeyType;
  /** True when the definition named a storage name (stores with a fixed key field may refuse other names). */
  readonly storageNameGiven: boolean;
}

/**
 * A checked record definition. Property names and storage names are unique, vectors have
 * positive integer dimensions, `embed` names a string data property.
 */
export interface RecordDefinition<R = Record<string, unknown>> {
  readonly key: ResolvedKeyProperty;
  readonly data: readonly ResolvedDataProperty[];
  readonly vectors: readonly ResolvedVectorProperty[];
  readonly embeddingGenerator: ITextEmbeddingGenerator | undefined;
  /** Phantom: the record type inferred from the input (never set at run time). */
  readonly __record?: R;
}

/** A stored vector value: what an application reads back. */
export type VectorValue = Float32Array;

type DataValueOf<T extends DataPropertyType> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'date'
        ? Date
        : T extends 'string[]'
          ? string[]
          : T extends 'number[]'
            ? number[]
            : never;

type KeyNameOf<K> = K extends string ? K : K extends { readonly name: infer N extends string } ? N : never;
type KeyValueOf<K> = K extends { readonly type: 'integer' } ? number : string;

type RequiredDataKeys<D> = { [P in keyof D]: D[P] extends { readonly optional: true } ? never : P }[keyof D];
type OptionalDataKeys<D> = Exclude<keyof D, RequiredDataKeys<D>>;
type DataFields<D> =
  D extends Readonly<Record<string, DataPropertyDefinition>>
    ? {
        -readonly [P in RequiredDataKeys<D>]: D[P] extends { readonly type: infer T extends DataPropertyType } ? DataValueOf<T> : never;
      } & {
        -readonly [P in OptionalDataKeys<D>]?: D[P] extends { readonly type: infer T extends DataPropertyType }
          ? DataValueOf<T> | null
          : never;
      }
    : unknown;

/** The record type of a definition input: key, data values, vectors (optional on input, as they may be embedded). */
export type RecordOf<I extends RecordDefinitionInput> = { -readonly [P in KeyNameOf<I['key']>]: KeyValueOf<I['key']> } & DataFields<
  NonNullable<I['data']>
> & { -readonly [P in keyof I['vectors']]?: VectorValue | number[] | null };

/** The record type of a definition. */
export type RecordType<D> = D extends RecordDefinition<infer R> ? R : never;

/** The key type of a record type. */
export type KeyValue = string | number;

/** Names of a record's properties usable in filters (any data property; core checks `filterable`). */
export type PropertyNames<R> = Extract<keyof R, string>;
