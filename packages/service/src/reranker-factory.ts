import { HttpTextReranker, MmrReranker, type ITextReranker } from '@km/core';
import type { SearchConfig } from './search-config.js';

/**
 * The reranker the `search` settings describe: none, MMR, or the Cohere, Jina or Voyage API
 * (`KM_RERANKER`, with `KM_RERANKER_API_KEY`, `KM_RERANKER_MODEL`, `KM_RERANKER_URL`).
 */
export function rerankerFromConfig(search: SearchConfig): ITextReranker | undefined {
  switch (search.reranker) {
    case 'none':
      return undefined;
    case 'mmr':
      return new MmrReranker();
    default:
      return new HttpTextReranker({
        provider: search.reranker,
        apiKey: search.rerankerApiKey ?? '',
        ...(search.rerankerModel ? { model: search.rerankerModel } : {}),
        ...(search.rerankerUrl ? { baseUrl: search.rerankerUrl } : {}),
      });
  }
}

/** A short description of the search settings, for the startup log. */
export function describeSearch(search: SearchConfig): string {
  const reranker = rerankerFromConfig(search);
  return `${search.mode ?? 'hybrid (vector where the memory DB has no word search)'} search${reranker ? `, reranked by ${reranker.name}` : ''}`;
}
