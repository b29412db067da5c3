/** The reranking APIs {@link HttpTextReranker} speaks. */
export type RerankProvider = 'cohere' | 'jina' | 'voyage';

/** What differs between the providers' rerank endpoints: where they are, the body, and where the answer keeps its list. */
export interface RerankWireFormat {
  /** The API's root when `baseUrl` is not given. */
  defaultBaseUrl: string;
  /** The endpoint's path under the root. */
  path: string;
  /** The model used when none is given. */
  defaultModel: string;
  /** The JSON body of one call. */
  body(model: string, query: string, documents: readonly string[], top: number): Record<string, unknown>;
  /** The answer's field holding `[{ index, relevance_score }]`. */
  listField: 'results' | 'data';
}

/** Each provider's wire format: Cohere v2 and Jina share one, Voyage names `top_k` and answers in `data`. */
export const RERANK_WIRE_FORMATS: Readonly<Record<RerankProvider, RerankWireFormat>> = {
  cohere: {
    defaultBaseUrl: 'https://api.cohere.com',
    path: '/v2/rerank',
    defaultModel: 'rerank-v3.5',
    body: (model, query, documents, top) => ({ model, query, documents, top_n: top }),
    listField: 'results',
  },
  jina: {
    defaultBaseUrl: 'https://api.jina.ai',
    path: '/v1/rerank',
    defaultModel: 'jina-reranker-v2-base-multilingual',
    // Jina echoes the documents unless told not to: km only needs the indexes.
    body: (model, query, documents, top) => ({ model, query, documents, top_n: top, return_documents: false }),
    listField: 'results',
  },
  voyage: {
    defaultBaseUrl: 'https://api.voyageai.com',
    path: '/v1/rerank',
    defaultModel: 'rerank-2',
    body: (model, query, documents, top) => ({ model, query, documents, top_k: top }),
    listField: 'data',
  },
};

/** The providers' names, for validation messages. */
export const RERANK_PROVIDERS = Object.keys(RERANK_WIRE_FORMATS) as RerankProvider[];
