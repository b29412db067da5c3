import { type MemoryDbFactory, settingsAsOptions } from '@km/core/connector';

/**
 * How the service and `km worker` build a {@link QdrantMemoryDb} from configuration
 * (`KM_MEMORY_DB=qdrant`). The connector and its client load only when it is chosen.
 */
export const qdrantMemoryDbFactory: MemoryDbFactory = {
  type: 'qdrant',
  description: 'Qdrant, shared by every worker (@qdrant/js-client-rest)',
  settings: [
    {
      key: 'qdrantUrl',
      env: ['KM_QDRANT_URL'],
      type: 'url',
      required: true,
      flag: '--qdrant-url',
      description: 'Qdrant, e.g. http://127.0.0.1:6333',
    },
    { key: 'qdrantApiKey', env: ['KM_QDRANT_API_KEY'], description: "sent as Qdrant's api-key header" },
    { key: 'prefix', env: ['KM_MEMORY_DB_PREFIX'], description: 'prepended to every collection km creates' },
  ],
  async create(settings) {
    const { QdrantMemoryDb } = await import('./qdrant-memory-db.js');
    return new QdrantMemoryDb(settingsAsOptions(settings, { url: 'qdrantUrl', apiKey: 'qdrantApiKey', collectionPrefix: 'prefix' }));
  },
};
