import { normalizeIndexName, toMemoryFilters, type ListDocumentsOptions, type MemoryFilter } from '@km/core';
import type { MemoryFilterJson } from '@km/wire';

/**
 * Options of `MemoryWebClient.listDocuments`: core's, with `filters` also as KM filter JSON
 * (`[{ "topic": ["space"] }]`), as `search` takes them.
 */
export interface DocumentListOptions extends Omit<ListDocumentsOptions, 'filters'> {
  /** Only documents whose own tags match one of these (OR across the list, AND inside one filter). */
  filters?: ReadonlyArray<MemoryFilter | MemoryFilterJson>;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/**
 * The query string of `GET /documents` for these options: `index`, and only what was given of
 * `limit`, `cursor`, `state` (comma-separated) and `filters` (KM filter JSON, a list). Filters are
 * checked here (`invalid_filter`), the rest by the service.
 */
export function documentListQuery(options: DocumentListOptions): string {
  const params = new URLSearchParams({ index: normalizeIndexName(options.index) });
  if (options.limit !== undefined) params.set('limit', String(options.limit));
  if (options.cursor) params.set('cursor', options.cursor);
  if (options.states && options.states.length > 0) params.set('state', options.states.join(','));
  const filters = toMemoryFilters(options.filters ?? []);
  if (filters.length > 0) params.set('filters', JSON.stringify(filters.map((f) => f.toJSON())));
  return params.toString();
}
