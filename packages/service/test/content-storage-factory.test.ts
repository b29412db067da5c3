import { MemoryContentStorage } from '@km/core';
import { PostgresContentStorage } from '@km/memorydb-postgres';
import { AzureBlobsContentStorage } from '@km/storage-azure-blobs';
import { S3ContentStorage } from '@km/storage-s3';
import { describe, expect, it } from 'vitest';
import { contentStorageFromConfig, loadConfig } from '../src/index.js';

const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const AZURITE = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_KEY};BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;`;

describe('contentStorageFromConfig', () => {
  it('gives no shared storage on the defaults (the builder keeps the data folder)', async () => {
    expect(loadConfig({ env: {} }).contentStorage).toEqual({ type: 'disk' });
    expect(await contentStorageFromConfig(loadConfig({ env: {} }).contentStorage)).toBeUndefined();
  });

  it.each([
    [{ KM_CONTENT_STORAGE: 'azureblobs', KM_AZURE_BLOBS_CONNECTION_STRING: AZURITE }, AzureBlobsContentStorage],
    [{ KM_CONTENT_STORAGE: 'azureblobs', AZURE_STORAGE_CONNECTION_STRING: AZURITE }, AzureBlobsContentStorage],
    [
      {
        KM_CONTENT_STORAGE: 's3',
        KM_S3_BUCKET: 'km-files',
        KM_S3_ENDPOINT: 'http://127.0.0.1:1',
        KM_S3_ACCESS_KEY_ID: 'a',
        KM_S3_SECRET_ACCESS_KEY: 'b',
      },
      S3ContentStorage,
    ],
    [{ KM_CONTENT_STORAGE: 'postgres', KM_POSTGRES_URL: 'postgres://u:p@127.0.0.1:1/km' }, PostgresContentStorage],
  ] as const)('builds the storage KM_CONTENT_STORAGE names (%j), without connecting', async (env, type) => {
    const storage = await contentStorageFromConfig(loadConfig({ env }).contentStorage);
    expect(storage).toBeInstanceOf(type);
    expect(storage).not.toBeInstanceOf(MemoryContentStorage);
    await (storage as { close?: () => Promise<void> }).close?.();
  });

  it.each([
    [{ KM_CONTENT_STORAGE: 's3' }, /contentStorage.s3Bucket \(KM_S3_BUCKET\) is not set/],
    [{ KM_CONTENT_STORAGE: 's3', KM_S3_BUCKET: 'km', KM_S3_ENDPOINT: 's3.local' }, /KM_S3_ENDPOINT\)/],
    [{ KM_CONTENT_STORAGE: 'postgres' }, /contentStorage.postgresUrl \(KM_POSTGRES_URL\) is not set/],
    [{ KM_CONTENT_STORAGE: 'nfs' }, /contentStorage.type \(KM_CONTENT_STORAGE\) must be one of "disk", "azureblobs", "s3", "postgres"/],
  ])('refuses %j at load, naming the setting', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it('refuses Azure Blobs without a connection string or an account, naming both ways', async () => {
    const config = loadConfig({ env: { KM_CONTENT_STORAGE: 'azureblobs' } }).contentStorage;
    await expect(contentStorageFromConfig(config)).rejects.toThrow(/KM_AZURE_BLOBS_CONNECTION_STRING.*KM_AZURE_BLOBS_ACCOUNT/s);
  });
});
