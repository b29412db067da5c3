import type { MemoryDbOptions } from '@km/core';
import type { QdrantClient } from '@qdrant/js-client-rest';

/** How to reach Qdrant and how to lay out collections. */
export interface QdrantMemoryDbOptions extends MemoryDbOptions {
  /** A client you built and own (closed by you); otherwise one is built from the fields below. */
  client?: QdrantClient;
  /** Server URL, e.g. `http://127.0.0.1:6333` or `https://xyz.cloud.qdrant.io:6333`. */
  url?: string;
  /** Host name, when no `url` is given (with `port` and `https`). */
  host?: string;
  /** @default 6333 */
  port?: number;
  /** Use TLS when building the URL from `host`. @default false */
  https?: boolean;
  /** Sent as the `api-key` header (Qdrant Cloud, or a server with `service.api_key`). */
  apiKey?: string;
  /** Request timeout in ms. @default 30000 */
  timeoutMs?: number;
  /** Prepended to every collection name (e.g. `km-`), so km's collections can share a server. @default '' */
  collectionPrefix?: string;
  /** Points per upsert request; a larger batch is sent as several requests. @default 256 */
  batchSize?: number;
  /** HNSW `ef` at search time; higher is more accurate and slower. Qdrant's default when unset. */
  hnswEf?: number;
  /** Exact (brute-force) search instead of HNSW. @default false */
  exactSearch?: boolean;
}
