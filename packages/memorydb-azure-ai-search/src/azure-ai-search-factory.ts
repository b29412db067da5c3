import { type MemoryDbFactory, settingsAsOptions } from '@km/core/connector';

/**
 * How the service and `km worker` build an {@link AzureAiSearchMemoryDb} from configuration
 * (`KM_MEMORY_DB=azureaisearch`), with an API key. Entra ID identities are for applications
 * that build the connector themselves and pass a `credential`. The connector and the SDK load
 * only when it is chosen.
 */
export const azureAiSearchMemoryDbFactory: MemoryDbFactory = {
  type: 'azureaisearch',
  description: 'Azure AI Search, shared by every worker (@azure/search-documents)',
  settings: [
    {
      key: 'azureSearchEndpoint',
      env: ['KM_AZURE_SEARCH_ENDPOINT'],
      type: 'url',
      required: true,
      flag: '--azure-search-endpoint',
      description: 'the search service, e.g. https://my-search.search.windows.net',
    },
    { key: 'azureSearchApiKey', env: ['KM_AZURE_SEARCH_API_KEY'], required: true, description: 'an admin key, sent as the api-key header' },
    { key: 'prefix', env: ['KM_MEMORY_DB_PREFIX'], description: "prepended to every index km creates (default 'km-')" },
  ],
  async create(settings) {
    const { AzureAiSearchMemoryDb } = await import('./azure-ai-search-memory-db.js');
    const options = settingsAsOptions(settings, { endpoint: 'azureSearchEndpoint', apiKey: 'azureSearchApiKey', indexPrefix: 'prefix' });
    return new AzureAiSearchMemoryDb({ ...options, endpoint: options.endpoint ?? '' });
  },
};
