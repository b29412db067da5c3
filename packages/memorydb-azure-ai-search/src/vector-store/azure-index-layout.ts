/**
 * How the typed driver lays out an index beyond what a record definition says. Every member is
 * off by default (typed collections need none); `AzureAiSearchMemoryDb` sets them all so that the
 * indexes it creates and the documents it writes are exactly those of km 0.x
 * (`KM_INDEX_LAYOUT`). Internal to the package's connectors, not a stable option.
 */
export interface AzureIndexLayout {
  /** A field written with a string key as given (the key field holds its encoded form), never read: km's `recordId`. */
  keyTextField?: string;
  /** Fields written and searched but never returned (`retrievable: false`, never in `$select`): km's `content`. */
  hiddenFields?: readonly string[];
  /** The vector profile and HNSW configuration names of cosine vectors in new indexes. @default `kmvs-cosine`, `kmvs-hnsw-cosine` */
  cosineProfile?: { profile: string; algorithm: string };
  /**
   * Create an index before reading it (and read it, a few times, only when the create fails, as a
   * concurrent creator's index may not be visible at once). @default false: read, then create
   */
  createFirst?: boolean;
  /** Names refused by the service's rules are `invalid_index_name` (km index names), not `invalid_argument`. @default false */
  indexNameErrors?: boolean;
}

/** The layout of km memory indexes, as km 0.x created and wrote them. */
export const KM_INDEX_LAYOUT: Readonly<AzureIndexLayout> = Object.freeze({
  keyTextField: 'recordId',
  hiddenFields: Object.freeze(['content']),
  cosineProfile: Object.freeze({ profile: 'km-vector-profile', algorithm: 'km-hnsw-cosine' }),
  createFirst: true,
  indexNameErrors: true,
});
