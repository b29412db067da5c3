import type { estypes } from '@elastic/elasticsearch';
import type { RecordDefinition } from '@km/core';
import type { DriverLexicalQuery } from '@km/core/connector';
import { vectorSourceExcludes } from './elasticsearch-vector-documents.js';
import { toElasticsearchVectorFilter } from './elasticsearch-vector-filter.js';
import type { ElasticsearchFieldStorage } from './elasticsearch-vector-store-options.js';

/** KM's analysed field holding the partition's text (`payload.text`). */
export const CONTENT_FIELD = 'content';
/** Elasticsearch's ceiling for a page of hits. */
const MAX_HITS = 10_000;

/**
 * A lexical search as an Elasticsearch search body: a `match` query on the property's text
 * (the field itself when `storage.textFields` maps it as `text`, KM's `content`; else its `text`
 * sub-field) — BM25 with the index's analyzer, the standard one by default; `operator: or`, so
 * any query word may match and more matches rank higher — with the filter as a bool `filter`
 * (not scored), at most `limit` hits, best first, ties in key order. The text is data of a
 * `match` query, never query syntax: quotes, `AND`, `*` or `:` are only words (or nothing) to the
 * analyzer. A text the analyzer reduces to no token matches nothing (`zero_terms_query: none`).
 * (Moved unchanged from km 0.x's memory DB driver: the scores are fitted.)
 *
 * ```ts
 * lexicalSearchRequest(definition, { property: content, text: 'tax rules', filter: undefined, limit: 5, includeVectors: false }, kmStorage)
 * // { query: { bool: { must: [{ match: { content: { query: 'tax rules', operator: 'or', zero_terms_query: 'none' } } }] } }, size: 5, ... }
 * ```
 */
export function lexicalSearchRequest(
  definition: RecordDefinition,
  query: Omit<DriverLexicalQuery, 'signal'>,
  storage: ElasticsearchFieldStorage = {},
): estypes.SearchRequest {
  const filter = toElasticsearchVectorFilter(query.filter);
  const { storageName } = query.property;
  const field = storage.textFields?.includes(storageName) ? storageName : `${storageName}.text`;
  return {
    query: {
      bool: {
        must: [{ match: { [field]: { query: query.text, operator: 'or', zero_terms_query: 'none' } } }],
        ...(filter ? { filter: [filter] } : {}),
      },
    },
    size: Math.min(MAX_HITS, Math.max(1, query.limit)),
    sort: [{ _score: { order: 'desc' } }, { [definition.key.storageName]: { order: 'asc' } }],
    track_scores: true,
    _source: { excludes: vectorSourceExcludes(definition, query.includeVectors, storage) },
  };
}

/**
 * A BM25 score (unbounded, `>= 0`) as km's lexical score in [0, 1): `score / (score + 1)`.
 * Monotone, so the order is Elasticsearch's, and a hit's score does not depend on the other
 * hits (dividing by the top score would give every search a 1, however poor its best match).
 */
export function lexicalScore(score: number): number {
  return score > 0 ? score / (score + 1) : 0;
}
