import type { Client } from '@elastic/elasticsearch';
import type { MemoryDbOptions } from '@km/core';

/** How to reach Elasticsearch and how to lay out indexes. */
export interface ElasticsearchMemoryDbOptions extends MemoryDbOptions {
  /** A client you built and own (closed by you); otherwise one is built from the fields below. */
  client?: Client;
  /** Node URL(s), e.g. `http://127.0.0.1:9200`. Give this or `cloudId`. */
  node?: string | string[];
  /** Elastic Cloud deployment id (instead of `node`). */
  cloudId?: string;
  /** An API key (the base64 `id:api_key` form, or `{ id, api_key }`). */
  apiKey?: string | { id: string; api_key: string };
  /** Basic authentication. */
  username?: string;
  password?: string;
  /** TLS: the CA certificate's SHA-256 fingerprint (as printed by Elasticsearch at setup), or a CA in PEM. */
  caFingerprint?: string;
  ca?: string;
  /** Request timeout in ms. @default 30000 */
  requestTimeoutMs?: number;
  /** Retries of a failed request by the client (connection errors, 502/503/504). @default 3 */
  maxRetries?: number;
  /** Prepended to every Elasticsearch index name; lower case, no `\ / * ? " < > | , # :` or spaces. @default 'km-' */
  indexPrefix?: string;
  /**
   * When writes become visible to search: `wait_for` (the request returns once a refresh made
   * them visible, so a completed document is searchable at once), `true` (force a refresh,
   * costly), `false` (Elasticsearch's near-real-time refresh, about 1 s). @default 'wait_for'
   */
  refresh?: boolean | 'wait_for';
  /** Records per bulk request; a larger batch is sent as several requests. @default 500 */
  batchSize?: number;
  /** Candidates per shard of a kNN search (at least the limit, at most 10000). @default max(100, 2 × limit) */
  numCandidates?: number;
  /** HNSW graph settings of new indexes. @default { m: 16, efConstruction: 100 } */
  hnsw?: { m?: number; efConstruction?: number };
  /** Shards and replicas of new indexes; Elasticsearch's defaults when unset. */
  numberOfShards?: number;
  numberOfReplicas?: number;
}

/** The client options of the connector's own client. */
export function clientOptions(options: ElasticsearchMemoryDbOptions): ConstructorParameters<typeof Client>[0] {
  const auth = options.apiKey
    ? { apiKey: options.apiKey }
    : options.username !== undefined
      ? { username: options.username, password: options.password ?? '' }
      : undefined;
  return {
    ...(options.cloudId ? { cloud: { id: options.cloudId } } : { node: options.node! }),
    ...(auth ? { auth } : {}),
    ...(options.caFingerprint ? { caFingerprint: options.caFingerprint } : {}),
    ...(options.ca ? { tls: { ca: options.ca } } : {}),
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 3,
  };
}
