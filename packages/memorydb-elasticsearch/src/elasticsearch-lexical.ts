import type { estypes } from '@elastic/elasticsearch';
import type { DriverLexicalSearch } from '@km/core/connector';
import { toElasticsearchFilter } from './elasticsearch-filters.js';
import { sourceFilter } from './elasticsearch-records.js';

/** The analysed field holding the partition's text (`payload.text`). */
export const CONTENT_FIELD = 'content';
/** Elasticsearch's ceiling for a page of hits. */
const MAX_HITS = 10_000;

/**
 * A lexical search as an Elasticsearch search body: a `match` query on `content` (BM25 with the
 * index's analyzer, the standard one by default; `operator: or`, so any query word may match
 * and more matches rank higher) with the km filters as a bool `filter` (not scored), at most
 * `limit` hits, best first, ties in id order. The text is data of a `match` query, never query
 * syntax: quotes, `AND`, `*` or `:` are only words (or nothing) to the analyzer. A text the
 * analyzer reduces to no token matches nothing (`zero_terms_query: none`).
 *
 * ```ts
 * lexicalSearchRequest({ text: 'tax rules', filters: [], limit: 5, withEmbeddings: false })
 * // { query: { bool: { must: [{ match: { content: { query: 'tax rules', operator: 'or', zero_terms_query: 'none' } } }] } }, size: 5, ... }
 * ```
 */
export function lexicalSearchRequest(query: Omit<DriverLexicalSearch, 'signal'>): estypes.SearchRequest {
  const filter = toElasticsearchFilter(query.filters);
  return {
    query: {
      bool: {
        must: [{ match: { [CONTENT_FIELD]: { query: query.text, operator: 'or', zero_terms_query: 'none' } } }],
        ...(filter ? { filter: [filter] } : {}),
      },
    },
    size: Math.min(MAX_HITS, Math.max(1, query.limit)),
    sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
    track_scores: true,
    _source: sourceFilter(query.withEmbeddings),
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
