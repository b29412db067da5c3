import { InvalidInputError } from '@km/core';
import { QdrantClient } from '@qdrant/js-client-rest';
import type { QdrantMemoryDbOptions } from './qdrant-config.js';

/** The connection settings both Qdrant stores take (the memory DB and the typed vector store). */
export type QdrantConnectionOptions = Pick<
  QdrantMemoryDbOptions,
  'client' | 'url' | 'host' | 'port' | 'https' | 'apiKey' | 'timeoutMs' | 'collectionPrefix' | 'batchSize'
>;

/** Qdrant's longest collection name, in bytes. */
export const MAX_COLLECTION_NAME_BYTES = 255;

/**
 * The client (the one given, or one built from `url` or `host`), the collection prefix and the
 * batch size of a Qdrant store, checked: `what` names the store in errors (`QdrantMemoryDb`,
 * `QdrantVectorStore`).
 *
 * ```ts
 * const { client, prefix, batchSize } = openQdrant({ url: 'http://127.0.0.1:6333' }, 'QdrantVectorStore');
 * ```
 */
export function openQdrant(options: QdrantConnectionOptions, what: string): { client: QdrantClient; prefix: string; batchSize: number } {
  if (!options.client && !options.url && !options.host) {
    throw new InvalidInputError('invalid_argument', `give ${what} a client, a url or a host`, { connector: 'qdrant' });
  }
  const prefix = options.collectionPrefix ?? '';
  if (prefix && !/^[A-Za-z0-9_-]+$/.test(prefix)) {
    throw new InvalidInputError('invalid_argument', `collectionPrefix may hold letters, digits, "_" and "-" only, got "${prefix}"`, {
      connector: 'qdrant',
    });
  }
  const client =
    options.client ??
    new QdrantClient({
      ...(options.url ? { url: options.url } : { host: options.host!, port: options.port ?? 6333, https: options.https ?? false }),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      timeout: options.timeoutMs ?? 30_000,
      checkCompatibility: false,
    });
  return { client, prefix, batchSize: Math.max(1, options.batchSize ?? 256) };
}
