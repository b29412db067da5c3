import { InvalidInputError } from '@km/core';
import { type ContentStorageFactory, settingsAsOptions } from '@km/core/connector';

/**
 * How the service and `km worker` build an `AzureBlobsContentStorage` (`KM_CONTENT_STORAGE=azureblobs`):
 * a connection string, or an account name with its key (and a custom endpoint for Azurite). The
 * SDK loads only when it is chosen. Entra ID credentials need code: pass `credential` to the class.
 */
export const azureBlobsContentStorageFactory: ContentStorageFactory = {
  type: 'azureblobs',
  description: 'Azure Blob Storage, shared by every worker (@azure/storage-blob)',
  settings: [
    {
      key: 'azureBlobsConnectionString',
      env: ['KM_AZURE_BLOBS_CONNECTION_STRING', 'AZURE_STORAGE_CONNECTION_STRING'],
      description: 'storage account connection string (or azureBlobsAccount with azureBlobsAccountKey)',
    },
    {
      key: 'azureBlobsAccount',
      env: ['KM_AZURE_BLOBS_ACCOUNT'],
      with: ['azureBlobsAccountKey'],
      description: 'storage account name, with azureBlobsAccountKey',
    },
    { key: 'azureBlobsAccountKey', env: ['KM_AZURE_BLOBS_ACCOUNT_KEY'], description: 'the account’s shared key' },
    {
      key: 'azureBlobsEndpoint',
      env: ['KM_AZURE_BLOBS_ENDPOINT'],
      type: 'url',
      description:
        'blob endpoint for the account, e.g. Azurite’s http://127.0.0.1:10000/devstoreaccount1 (default https://{account}.blob.core.windows.net)',
    },
    {
      key: 'azureBlobsContainer',
      env: ['KM_AZURE_BLOBS_CONTAINER'],
      default: 'km-content',
      description: 'container holding every index, created if missing',
    },
  ],
  async create(settings) {
    const connection = settings.azureBlobsConnectionString !== undefined;
    const account = settings.azureBlobsAccount !== undefined;
    if (connection === account) {
      const message = connection
        ? 'contentStorage.type is azureblobs: set KM_AZURE_BLOBS_CONNECTION_STRING or KM_AZURE_BLOBS_ACCOUNT (with KM_AZURE_BLOBS_ACCOUNT_KEY), not both'
        : 'contentStorage.type is azureblobs but neither KM_AZURE_BLOBS_CONNECTION_STRING (or AZURE_STORAGE_CONNECTION_STRING) nor KM_AZURE_BLOBS_ACCOUNT with KM_AZURE_BLOBS_ACCOUNT_KEY is set';
      throw new InvalidInputError('invalid_argument', `configuration: ${message}`, { connector: 'azureblobs' });
    }
    if (connection && settings.azureBlobsEndpoint !== undefined) {
      const message =
        'configuration: KM_AZURE_BLOBS_ENDPOINT goes with KM_AZURE_BLOBS_ACCOUNT; a connection string names its own endpoint (BlobEndpoint=…)';
      throw new InvalidInputError('invalid_argument', message, { connector: 'azureblobs' });
    }
    const { AzureBlobsContentStorage } = await import('./azure-blobs-content-storage.js');
    return new AzureBlobsContentStorage(
      settingsAsOptions(settings, {
        connectionString: 'azureBlobsConnectionString',
        accountName: 'azureBlobsAccount',
        accountKey: 'azureBlobsAccountKey',
        accountUrl: 'azureBlobsEndpoint',
        container: 'azureBlobsContainer',
      }),
    );
  },
};
