/**
 * One filter in the JSON form of `filters` in `POST /search` and `POST /ask` (Kernel Memory's
 * MemoryFilter): every `key: [values]` must match (AND); a key written `!key` excludes records
 * with that tag (km's NOT); a null value is the key without a value. Several filters in the
 * `filters` array match when any one does (OR).
 *
 * ```ts
 * const filters: MemoryFilterJson[] = [{ topic: ['space'], '!draft': [null] }, { user: ['alice'] }];
 * ```
 */
export type MemoryFilterJson = Record<string, Array<string | null>>;
