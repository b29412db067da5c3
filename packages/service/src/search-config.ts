import { SEARCH_MODES, type SearchMode } from '@km/core';

/** What reranks search and ask results: nothing, MMR (diversity, offline), or a reranking API. */
export type RerankerKind = 'none' | 'mmr' | 'cohere' | 'jina' | 'voyage';

/** The values of {@link RerankerKind}. */
export const RERANKER_KINDS: readonly RerankerKind[] = ['none', 'mmr', 'cohere', 'jina', 'voyage'];
/** The rerankers that call an API, and so need a key. */
const API_RERANKERS: readonly RerankerKind[] = ['cohere', 'jina', 'voyage'];

/** How search and ask retrieve and rerank when a request does not say. */
export interface SearchConfig {
  /**
   * `vector`, `lexical` or `hybrid`; `lexical` and `hybrid` need a memory DB that searches words
   * (the embedded one does), others fall back to vector. @default unset: core's default, hybrid where the memory DB searches words, else vector (env KM_SEARCH_MODE)
   */
  mode?: SearchMode;
  /** Reranks every search and ask unless the request says `rerank: false`. @default 'none' (env KM_RERANKER) */
  reranker: RerankerKind;
  /** The reranking API's key, required for `cohere`, `jina` and `voyage`. (env KM_RERANKER_API_KEY) */
  rerankerApiKey?: string;
  /** The reranking model. @default the provider's (rerank-v3.5, jina-reranker-v2-base-multilingual, rerank-2) (env KM_RERANKER_MODEL) */
  rerankerModel?: string;
  /** The reranking API's root, e.g. a proxy. @default the provider's public API (env KM_RERANKER_URL) */
  rerankerUrl?: string;
}

/** The `search` settings found in the environment. */
export function searchFromEnv(env: NodeJS.ProcessEnv): Partial<SearchConfig> {
  const out: Partial<SearchConfig> = {};
  const str = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const names = {
    mode: 'KM_SEARCH_MODE',
    reranker: 'KM_RERANKER',
    rerankerApiKey: 'KM_RERANKER_API_KEY',
    rerankerModel: 'KM_RERANKER_MODEL',
    rerankerUrl: 'KM_RERANKER_URL',
  } as const;
  for (const [key, name] of Object.entries(names) as Array<[keyof typeof names, string]>) {
    const value = str(name);
    if (value !== undefined) (out as Record<string, string>)[key] = key === 'mode' || key === 'reranker' ? value.toLowerCase() : value;
  }
  return out;
}

/** Checks the `search` settings, failing with a message naming the setting and its variable. */
export function validateSearch(search: SearchConfig, fail: (message: string) => never): void {
  if (search.mode !== undefined && !SEARCH_MODES.includes(search.mode)) {
    fail(`search.mode (KM_SEARCH_MODE) must be vector, lexical or hybrid, got ${JSON.stringify(search.mode)}`);
  }
  if (!RERANKER_KINDS.includes(search.reranker)) {
    fail(`search.reranker (KM_RERANKER) must be one of ${RERANKER_KINDS.join(', ')}, got ${JSON.stringify(search.reranker)}`);
  }
  const usesApi = API_RERANKERS.includes(search.reranker);
  if (usesApi && !search.rerankerApiKey) {
    fail(`search.reranker is ${search.reranker} but search.rerankerApiKey (KM_RERANKER_API_KEY) is not set`);
  }
  if (!usesApi) {
    const stray = (['rerankerApiKey', 'rerankerModel', 'rerankerUrl'] as const).find((key) => search[key] !== undefined);
    if (stray) {
      fail(`search.${stray} is set but search.reranker (KM_RERANKER) is ${search.reranker}: set KM_RERANKER to cohere, jina or voyage`);
    }
  }
  if (search.rerankerModel !== undefined && (typeof search.rerankerModel !== 'string' || search.rerankerModel.trim() === '')) {
    fail('search.rerankerModel (KM_RERANKER_MODEL) must be a non-empty string');
  }
  if (search.rerankerUrl !== undefined && !isHttpUrl(search.rerankerUrl)) {
    fail(`search.rerankerUrl (KM_RERANKER_URL) must be an http(s):// URL, got ${JSON.stringify(search.rerankerUrl)}`);
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
