import { BlobServiceClient, ContainerClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { InvalidInputError } from '@km/core';
import { type AzureBlobsContentStorageOptions, DEFAULT_CONTAINER } from './azure-blobs-options.js';
import { checkContainerName } from './container-name.js';

/** `accountUrl` with `sasToken` appended to its query. */
export function withSas(url: string, sasToken: string | undefined): string {
  if (!sasToken) return url;
  const token = sasToken.replace(/^\?/, '');
  return `${url}${url.includes('?') ? '&' : '?'}${token}`;
}

/** The blob endpoint of an account in Azure's public cloud. */
export const defaultAccountUrl = (accountName: string) => `https://${accountName}.blob.core.windows.net`;

/**
 * The container client the options describe: a connection string, an account name and key,
 * an account URL (with a SAS or a credential), a container URL, or the caller's own client.
 * Refuses options that give none, or two ways at once (`invalid_argument`, the message starting
 * with `owner`: what was configured).
 */
export function containerClientOf(options: AzureBlobsContentStorageOptions, owner = 'AzureBlobsContentStorage'): ContainerClient {
  const fail = (message: string): never => {
    throw new InvalidInputError('invalid_argument', `${owner}: ${message}`, { connector: 'azureblobs' });
  };
  const ways = [
    options.containerClient && 'containerClient',
    options.connectionString && 'connectionString',
    options.containerUrl && 'containerUrl',
    (options.accountName || options.accountUrl) && 'accountName/accountUrl',
  ].filter(Boolean);
  if (ways.length === 0) {
    fail(
      'give a connectionString, an accountName with accountKey, an accountUrl with a sasToken or credential, a containerUrl or a containerClient',
    );
  }
  if (ways.length > 1) fail(`give one way to reach the storage account, not ${ways.join(' and ')}`);
  if (options.containerClient) return options.containerClient;
  if (options.containerUrl) return new ContainerClient(withSas(options.containerUrl, options.sasToken), options.credential as never);
  const container = checkContainerName(options.container ?? DEFAULT_CONTAINER, owner);
  if (options.connectionString) return BlobServiceClient.fromConnectionString(options.connectionString).getContainerClient(container);
  if (options.accountKey && !options.accountName) fail('accountKey needs accountName');
  const accountUrl = withSas(options.accountUrl ?? defaultAccountUrl(options.accountName!), options.sasToken);
  const credential = options.accountKey ? new StorageSharedKeyCredential(options.accountName!, options.accountKey) : options.credential;
  if (!credential && !/[?&]sig=/.test(accountUrl)) {
    fail('an accountUrl or accountName needs an accountKey, a sasToken (or a SAS in the URL) or a credential');
  }
  return new BlobServiceClient(accountUrl, credential as never).getContainerClient(container);
}
