import { StorageSharedKeyCredential } from '@azure/storage-blob';
import { describe, expect, it } from 'vitest';
import { AzureBlobsContentStorage, azureBlobsContentStorageFactory, containerClientOf, withSas } from '../src/index.js';

const KEY = Buffer.alloc(64, 1).toString('base64');
const refused = (f: () => unknown, text: RegExp) =>
  expect(f).toThrow(expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(text) }));

describe('containerClientOf', () => {
  it('builds the container URL from each way of reaching the account (no request is sent)', () => {
    expect(containerClientOf({ accountName: 'acct', accountKey: KEY }).url).toBe('https://acct.blob.core.windows.net/km-content');
    const azurite = containerClientOf({
      accountName: 'devstoreaccount1',
      accountKey: KEY,
      accountUrl: 'http://127.0.0.1:1/devstoreaccount1',
      container: 'ccc',
    });
    expect(azurite.url).toBe('http://127.0.0.1:1/devstoreaccount1/ccc');
    expect(azurite.credential).toBeInstanceOf(StorageSharedKeyCredential);
    const sas = containerClientOf({ accountUrl: 'https://acct.blob.core.windows.net', sasToken: '?sv=1&sig=abc' });
    expect(sas.url).toBe('https://acct.blob.core.windows.net/km-content?sv=1&sig=abc');
    const token = { getToken: async () => ({ token: 't', expiresOnTimestamp: Date.now() + 60_000 }) };
    expect(containerClientOf({ accountName: 'acct', credential: token }).url).toBe('https://acct.blob.core.windows.net/km-content');
    expect(containerClientOf({ containerUrl: 'https://acct.blob.core.windows.net/mine?sv=1&sig=x' }).containerName).toBe('mine');
    const cs = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=http://127.0.0.1:2/devstoreaccount1;`;
    expect(containerClientOf({ connectionString: cs, container: 'xyz' }).url).toBe('http://127.0.0.1:2/devstoreaccount1/xyz');
  });

  it('refuses no way, two ways, or an account without any credential', () => {
    refused(() => containerClientOf({}), /give a connectionString/);
    refused(
      () => containerClientOf({ connectionString: 'UseDevelopmentStorage=true', accountName: 'a', accountKey: KEY }),
      /not connectionString and/,
    );
    refused(() => containerClientOf({ accountName: 'acct' }), /needs an accountKey, a sasToken/);
    refused(() => containerClientOf({ accountUrl: 'https://a.blob.core.windows.net', accountKey: KEY }), /accountKey needs accountName/);
  });

  it('refuses, when configured, a container name Azure would refuse at the first request (the old default `km` among them)', () => {
    const named = (container: string) => () => containerClientOf({ accountName: 'acct', accountKey: KEY, container });
    refused(named('km'), /container name "km" \(KM_AZURE_BLOBS_CONTAINER, option container\) has 2 characters; Azure allows 3 to 63/);
    refused(named('x'.repeat(64)), /has 64 characters/);
    refused(named('My-Files'), /only lower-case letters, digits and hyphens/);
    refused(named('km_files'), /only lower-case letters, digits and hyphens/);
    refused(named('-files'), /start and end with a letter or digit/);
    refused(named('files-'), /start and end with a letter or digit/);
    refused(named('km--files'), /two hyphens in a row/);
    for (const ok of ['km-content', 'abc', '0ab', 'a'.repeat(63), 'tenant-1-files']) expect(named(ok)().containerName).toBe(ok);
  });

  it('appends a SAS token with ? or &', () => {
    expect(withSas('https://a/x', 'sv=1')).toBe('https://a/x?sv=1');
    expect(withSas('https://a/x?comp=1', '?sv=1')).toBe('https://a/x?comp=1&sv=1');
    expect(withSas('https://a/x', undefined)).toBe('https://a/x');
  });

  it('says where the files are without the SAS', () => {
    const s = new AzureBlobsContentStorage({ accountUrl: 'https://acct.blob.core.windows.net', sasToken: 'sv=1&sig=secret', prefix: 'p/' });
    expect(s.location).toBe('https://acct.blob.core.windows.net/km-content/p/');
  });
});

describe('azureBlobsContentStorageFactory', () => {
  const context = { logger: { debug() {}, info() {}, warn() {}, error() {} } } as never;

  it('declares its settings and environment variables', () => {
    const byKey = Object.fromEntries(azureBlobsContentStorageFactory.settings.map((s) => [s.key, s]));
    expect(azureBlobsContentStorageFactory.type).toBe('azureblobs');
    expect(byKey.azureBlobsConnectionString!.env).toEqual(['KM_AZURE_BLOBS_CONNECTION_STRING', 'AZURE_STORAGE_CONNECTION_STRING']);
    expect(byKey.azureBlobsAccount!.env).toEqual(['KM_AZURE_BLOBS_ACCOUNT']);
    expect(byKey.azureBlobsAccount!.with).toEqual(['azureBlobsAccountKey']);
    expect(byKey.azureBlobsAccountKey!.env).toEqual(['KM_AZURE_BLOBS_ACCOUNT_KEY']);
    expect(byKey.azureBlobsEndpoint).toMatchObject({ env: ['KM_AZURE_BLOBS_ENDPOINT'], type: 'url' });
    expect(byKey.azureBlobsContainer).toMatchObject({ env: ['KM_AZURE_BLOBS_CONTAINER'], default: 'km-content' });
  });

  it('refuses neither a connection string nor an account, naming both variables; and both at once', async () => {
    await expect(azureBlobsContentStorageFactory.create({ azureBlobsContainer: 'km' }, context)).rejects.toThrow(
      /KM_AZURE_BLOBS_CONNECTION_STRING.*KM_AZURE_BLOBS_ACCOUNT/,
    );
    const both = { azureBlobsConnectionString: 'UseDevelopmentStorage=true', azureBlobsAccount: 'a', azureBlobsAccountKey: KEY };
    await expect(azureBlobsContentStorageFactory.create(both, context)).rejects.toThrow(/not both/);
    const endpoint = { azureBlobsConnectionString: 'UseDevelopmentStorage=true', azureBlobsEndpoint: 'http://127.0.0.1:1/x' };
    await expect(azureBlobsContentStorageFactory.create(endpoint, context)).rejects.toThrow(
      /KM_AZURE_BLOBS_ENDPOINT goes with KM_AZURE_BLOBS_ACCOUNT/,
    );
  });

  it('builds a storage on the configured container and endpoint', async () => {
    const s = (await azureBlobsContentStorageFactory.create(
      {
        azureBlobsAccount: 'devstoreaccount1',
        azureBlobsAccountKey: KEY,
        azureBlobsEndpoint: 'http://127.0.0.1:1/devstoreaccount1',
        azureBlobsContainer: 'files',
      },
      context,
    )) as AzureBlobsContentStorage;
    expect(s.container.url).toBe('http://127.0.0.1:1/devstoreaccount1/files');
  });
});
