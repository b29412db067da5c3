import type { IMemoryDb } from '@km/core';
import type { ServiceConfig } from './config.js';

/**
 * The shared memory DB the configuration names, or undefined for the embedded SimpleVectorDb.
 * Each connector is imported only when configured: a service on the defaults does not load
 * the Qdrant or Elasticsearch clients.
 */
export async function memoryDbFromConfig(config: ServiceConfig['memoryDb']): Promise<IMemoryDb | undefined> {
  switch (config.type) {
    case 'postgres': {
      const { PostgresMemoryDb } = await import('@km/memorydb-postgres');
      return new PostgresMemoryDb({ connectionString: config.postgresUrl!, maxConnections: config.postgresMaxConnections });
    }
    case 'qdrant': {
      const { QdrantMemoryDb } = await import('@km/memorydb-qdrant');
      return new QdrantMemoryDb({
        url: config.qdrantUrl!,
        ...(config.qdrantApiKey ? { apiKey: config.qdrantApiKey } : {}),
        ...(config.prefix !== undefined ? { collectionPrefix: config.prefix } : {}),
      });
    }
    case 'elasticsearch': {
      const { ElasticsearchMemoryDb } = await import('@km/memorydb-elasticsearch');
      return new ElasticsearchMemoryDb({
        node: config.elasticsearchUrl!,
        ...(config.elasticsearchApiKey ? { apiKey: config.elasticsearchApiKey } : {}),
        ...(config.elasticsearchUsername !== undefined
          ? { username: config.elasticsearchUsername, password: config.elasticsearchPassword! }
          : {}),
        ...(config.prefix !== undefined ? { indexPrefix: config.prefix } : {}),
      });
    }
    default:
      return undefined;
  }
}
