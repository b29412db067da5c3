/**
 * How {@link MongoDbVectorStoreDriver} lays out its documents and search index, where a layout
 * other than the typed store's default must be kept: `MongoDbMemoryDb` passes km 0.x's (search
 * index `km_vector` without `_id` as a filter field, the payload as a sub-document, the score
 * projected as `score`, every collection under its prefix listed), so collections written by
 * earlier versions open unchanged. Internal: `MongoDbVectorStore` always uses the defaults.
 */
export interface MongoDbStorageLayout {
  /** The name of each collection's `vectorSearch` index. @default 'kmvs_vector' */
  searchIndexName?: string;
  /** Declare `_id` as a `filter` field of a new search index (needed to filter on the key). @default true */
  keyFilterField?: boolean;
  /**
   * Storage names of `string` properties that hold JSON text and are stored as native values
   * (a sub-document): written parsed, read back as JSON text (a stored value that is not a
   * document reads as null). @default none
   */
  jsonProperties?: readonly string[];
  /** The field a search projects Atlas's score into (no stored field may have this name). @default '__km_score' */
  scoreField?: string;
  /**
   * `listCollections` lists every collection name under the prefix as it is, not only valid
   * typed collection names (km index names may start with `-`, prefixes may hold `.`). @default false
   */
  listEveryCollection?: boolean;
  /**
   * `delete` sends its `deleteMany` without asking `listCollections` first whether the
   * collection exists: a delete creates no collection, so one in a missing collection is a no-op
   * instead of `collection_not_found`, which only the extra round trip could tell. For
   * `MemoryDb`, where a delete in a missing index is a no-op anyway. @default false
   */
  uncheckedDeletes?: boolean;
}

/** The layout with its defaults. */
export type ResolvedStorageLayout = Required<MongoDbStorageLayout>;

export function resolveStorageLayout(layout: MongoDbStorageLayout = {}): ResolvedStorageLayout {
  return {
    searchIndexName: layout.searchIndexName ?? 'kmvs_vector',
    keyFilterField: layout.keyFilterField ?? true,
    jsonProperties: layout.jsonProperties ?? [],
    scoreField: layout.scoreField ?? '__km_score',
    listEveryCollection: layout.listEveryCollection ?? false,
    uncheckedDeletes: layout.uncheckedDeletes ?? false,
  };
}
