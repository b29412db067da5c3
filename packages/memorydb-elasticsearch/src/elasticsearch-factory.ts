import { type MemoryDbFactory, settingsAsOptions } from '@km/core/connector';

/**
 * How the service and `km worker` build an {@link ElasticsearchMemoryDb} from configuration
 * (`KM_MEMORY_DB=elasticsearch`). The connector and its client load only when it is chosen.
 */
export const elasticsearchMemoryDbFactory: MemoryDbFactory = {
  type: 'elasticsearch',
  description: 'Elasticsearch 8, shared by every worker (@elastic/elasticsearch)',
  settings: [
    {
      key: 'elasticsearchUrl',
      env: ['KM_ELASTICSEARCH_URL'],
      type: 'url',
      required: true,
      flag: '--elasticsearch-url',
      description: 'Elasticsearch, e.g. http://127.0.0.1:9200',
    },
    { key: 'elasticsearchApiKey', env: ['KM_ELASTICSEARCH_API_KEY'], description: 'an API key (base64 id:api_key)' },
    {
      key: 'elasticsearchUsername',
      env: ['KM_ELASTICSEARCH_USERNAME'],
      with: ['elasticsearchPassword'],
      description: 'basic authentication',
    },
    { key: 'elasticsearchPassword', env: ['KM_ELASTICSEARCH_PASSWORD'], description: 'basic authentication' },
    { key: 'prefix', env: ['KM_MEMORY_DB_PREFIX'], description: "prepended to every index km creates (default 'km-')" },
  ],
  async create(settings) {
    const { ElasticsearchMemoryDb } = await import('./elasticsearch-memory-db.js');
    const credentials = { apiKey: 'elasticsearchApiKey', username: 'elasticsearchUsername', password: 'elasticsearchPassword' };
    return new ElasticsearchMemoryDb(settingsAsOptions(settings, { node: 'elasticsearchUrl', indexPrefix: 'prefix', ...credentials }));
  },
};
