import { startRequestRecorder, type RequestRecorder } from '@km/conformance';
import { AzureAiSearchMemoryDb } from '@km/memorydb-azure-ai-search';
import { ElasticsearchMemoryDb } from '@km/memorydb-elasticsearch';
import { MongoDbMemoryDb } from '@km/memorydb-mongodb';
import { PostgresMemoryDb } from '@km/memorydb-postgres';
import { QdrantMemoryDb } from '@km/memorydb-qdrant';
import { RedisMemoryDb } from '@km/memorydb-redis';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimpleVectorDb, silentLogger } from '@km/core';
import { loadConfig, memoryDbFromConfig, memoryDbsFromConfig } from '../src/index.js';

const recorders: RequestRecorder[] = [];
/** A recorder answering every request with `json`: checks where the service sends requests and with which credentials. */
async function startRecorder(json: unknown, headers?: Record<string, string>): Promise<RequestRecorder> {
  const recorder = await startRequestRecorder(() => ({ json, ...(headers ? { headers } : {}) }));
  recorders.push(recorder);
  return recorder;
}
afterEach(async () => {
  for (const recorder of recorders.splice(0)) await recorder.close();
});

describe('memoryDbFromConfig', () => {
  it('gives no shared DB on the defaults (the builder keeps its embedded SimpleVectorDb)', async () => {
    expect(await memoryDbFromConfig(loadConfig({ env: {} }).memoryDb)).toBeUndefined();
  });

  it('builds the Postgres connector from KM_POSTGRES_URL', async () => {
    const db = await memoryDbFromConfig(
      loadConfig({ env: { KM_MEMORY_DB: 'postgres', KM_POSTGRES_URL: 'postgres://u:p@127.0.0.1:1/km' } }).memoryDb,
    );
    expect(db).toBeInstanceOf(PostgresMemoryDb);
    await (db as PostgresMemoryDb).close();
  });

  it('builds the Qdrant connector: requests go to KM_QDRANT_URL with the API key, collections under the prefix', async () => {
    const qdrant = await startRecorder({ status: 'ok', time: 0, result: { collections: [{ name: 'km_notes' }, { name: 'other' }] } });
    const env = { KM_MEMORY_DB: 'qdrant', KM_QDRANT_URL: qdrant.url, KM_QDRANT_API_KEY: 'secret-key', KM_MEMORY_DB_PREFIX: 'km_' };
    const db = await memoryDbFromConfig(loadConfig({ env }).memoryDb);
    expect(db).toBeInstanceOf(QdrantMemoryDb);
    expect(await db!.getIndexes()).toEqual(['notes']);
    expect(qdrant.requests).toMatchObject([{ method: 'GET', path: '/collections', headers: { 'api-key': 'secret-key' } }]);
  });

  it('builds the Elasticsearch connector: requests go to KM_ELASTICSEARCH_URL with the API key, indexes under the prefix', async () => {
    const es = await startRecorder([{ index: 'km-notes' }, { index: 'km-' }], { 'x-elastic-product': 'Elasticsearch' });
    const env = { KM_MEMORY_DB: 'elasticsearch', KM_ELASTICSEARCH_URL: es.url, KM_ELASTICSEARCH_API_KEY: 'aWQ6a2V5' };
    const db = await memoryDbFromConfig(loadConfig({ env }).memoryDb);
    expect(db).toBeInstanceOf(ElasticsearchMemoryDb);
    expect(await db!.getIndexes()).toEqual(['notes']);
    expect(es.requests).toHaveLength(1);
    expect(es.requests[0]!.path).toMatch(/^\/_cat\/indices\/km-\*/);
    expect(es.requests[0]!.headers.authorization).toBe('ApiKey aWQ6a2V5');
    await (db as ElasticsearchMemoryDb).close();
  });
});

describe('memoryDbFromConfig on Redis, MongoDB and Azure AI Search', () => {
  it.each([
    [{ KM_MEMORY_DB: 'redis', KM_REDIS_URL: 'redis://127.0.0.1:1' }, RedisMemoryDb],
    [{ KM_MEMORY_DB: 'mongodb', KM_MONGODB_URL: 'mongodb://127.0.0.1:1/?directConnection=true' }, MongoDbMemoryDb],
    [
      { KM_MEMORY_DB: 'azureaisearch', KM_AZURE_SEARCH_ENDPOINT: 'https://s.search.windows.net', KM_AZURE_SEARCH_API_KEY: 'k' },
      AzureAiSearchMemoryDb,
    ],
  ] as const)('builds the connector KM_MEMORY_DB names (%j), without connecting', async (env, type) => {
    const db = await memoryDbFromConfig(loadConfig({ env }).memoryDb);
    expect(db).toBeInstanceOf(type);
    await (db as { close?: () => Promise<void> }).close?.();
  });
});

describe('memoryDbsFromConfig', () => {
  it('gives no memory DB on the defaults (the builder keeps its embedded SimpleVectorDb)', async () => {
    expect(await memoryDbsFromConfig(loadConfig({ env: {} }).memoryDb)).toEqual([]);
  });

  it('builds every memory DB of KM_MEMORY_DB=qdrant,elasticsearch in order, each with its own settings', async () => {
    const qdrant = await startRecorder({ status: 'ok', time: 0, result: { collections: [{ name: 'notes' }] } });
    const es = await startRecorder([{ index: 'km-papers' }], { 'x-elastic-product': 'Elasticsearch' });
    const env = { KM_MEMORY_DB: 'qdrant,elasticsearch', KM_QDRANT_URL: qdrant.url, KM_ELASTICSEARCH_URL: es.url };
    const dbs = await memoryDbsFromConfig(loadConfig({ env }).memoryDb);
    expect(dbs.map((db) => db.constructor)).toEqual([QdrantMemoryDb, ElasticsearchMemoryDb]);
    // Qdrant's empty default prefix did not become Elasticsearch's: its indexes keep "km-".
    expect(await dbs[0]!.getIndexes()).toEqual(['notes']);
    expect(await dbs[1]!.getIndexes()).toEqual(['papers']);
    expect(es.requests[0]!.path).toMatch(/^\/_cat\/indices\/km-\*/);
    await (dbs[1] as ElasticsearchMemoryDb).close();
  });

  it('builds "simple" among several as the SimpleVectorDb of the data folder', async () => {
    const dataDirectory = await mkdtemp(join(tmpdir(), 'km-dbs-'));
    try {
      const env = { KM_MEMORY_DB: 'simple,postgres', KM_POSTGRES_URL: 'postgres://u:p@127.0.0.1:1/km' };
      const dbs = await memoryDbsFromConfig(loadConfig({ env }).memoryDb, { logger: silentLogger, dataDirectory });
      expect(dbs[0]).toBeInstanceOf(SimpleVectorDb);
      expect(dbs[1]).toBeInstanceOf(PostgresMemoryDb);
      await dbs[0]!.upsert('notes', { id: 'r1', vector: [1, 0], tags: {}, payload: {} });
      await (dbs[0] as SimpleVectorDb).close();
      const reopened = new SimpleVectorDb({ directory: join(dataDirectory, 'vectors') });
      expect(await reopened.getIndexes()).toEqual(['notes']);
      await reopened.close();
      await (dbs[1] as PostgresMemoryDb).close();
    } finally {
      await rm(dataDirectory, { recursive: true, force: true });
    }
  });
});
