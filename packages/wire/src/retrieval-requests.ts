import type { MemoryFilterJson } from './memory-filter-json.js';

/** km's additions to Kernel Memory's search and ask bodies; a KM service ignores them, so send them only when set. */
export interface RetrievalModeFields {
  /** `vector`, `lexical` or `hybrid`. @default the service's KM_SEARCH_MODE */
  mode?: 'vector' | 'lexical' | 'hybrid';
  /** How `hybrid` fuses its two rankings. */
  fusion?: { method?: 'rrf' | 'weighted'; vectorWeight?: number; rrfK?: number };
  /** `true` (the configured reranker), `'mmr'` (diversity) or `false`. @default the configured reranker, if any */
  rerank?: boolean | 'mmr';
}

/** Body of `POST /search` (Kernel Memory's SearchQuery, plus km's {@link RetrievalModeFields}). */
export interface SearchRequest extends RetrievalModeFields {
  /** @default 'default' */
  index?: string;
  query: string;
  /** Any one may match (OR). */
  filters?: MemoryFilterJson[];
  /** @default the service's minimum relevance */
  minRelevance?: number;
  /** -1 for the service's default. @default -1 */
  limit?: number;
  /** Request arguments handed to the service's handlers (km's `args`). */
  args?: Record<string, unknown>;
}

/** Body of `POST /ask` (Kernel Memory's MemoryQuery, plus km's {@link RetrievalModeFields}). */
export interface AskRequest extends RetrievalModeFields {
  /** @default 'default' */
  index?: string;
  question: string;
  /** Any one may match (OR). */
  filters?: MemoryFilterJson[];
  /** @default the service's minimum relevance */
  minRelevance?: number;
  /** True: the answer comes as server-sent events (see `readAnswerStream`). @default false */
  stream?: boolean;
  /** Request arguments handed to the service's handlers (km's `args`). */
  args?: Record<string, unknown>;
}
