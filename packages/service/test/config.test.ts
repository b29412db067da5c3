import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../src/index.js';

describe('loadConfig', () => {
  it('uses the embedded defaults when nothing is set', () => {
    expect(loadConfig({ env: {} })).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).toMatchObject({
      host: '127.0.0.1',
      port: 9001,
      embeddings: { provider: 'local' },
      queue: { type: 'file' },
      auth: { enabled: false },
    });
  });

  it('layers a JSON file, then environment variables, then overrides', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'km-cfg-')), 'km.json');
    writeFileSync(file, JSON.stringify({ port: 9100, dataDirectory: '/srv/km', queue: { concurrency: 4 } }));
    const config = loadConfig({ env: { KM_CONFIG: file, KM_PORT: '9200', KM_QUEUE_CONCURRENCY: '8' }, overrides: { host: '0.0.0.0' } });
    expect(config).toMatchObject({
      port: 9200,
      dataDirectory: '/srv/km',
      host: '0.0.0.0',
      queue: { concurrency: 8, type: 'file', maxAttempts: 50 },
    });
  });

  it('derives queue.maxAttempts (the queues’ delivery cap) from queue.maxStepAttempts, the retry budget and the delays, unless it is given', () => {
    // 10 minutes of retries at 1 s doubling to 60 s: 45 more deliveries than the step attempts + 2.
    expect(loadConfig({ env: { KM_MAX_STEP_ATTEMPTS: '6' } }).queue).toMatchObject({
      maxStepAttempts: 6,
      retryBudgetMs: 600_000,
      maxAttempts: 53,
    });
    expect(loadConfig({ env: { KM_MAX_STEP_ATTEMPTS: '6', KM_RETRY_BUDGET_MS: '0' } }).queue).toMatchObject({ maxAttempts: 8 });
    expect(
      loadConfig({ env: { KM_RETRY_BUDGET_MS: '60000' }, overrides: { queue: { retryDelayMs: 250, maxRetryDelayMs: 1000 } } }).queue,
    ).toMatchObject({
      maxAttempts: 5 + 2 + 240,
    });
    expect(() => loadConfig({ env: { KM_RETRY_BUDGET_MS: '-1' } })).toThrow('queue.retryBudgetMs must be a number of ms >= 0');
    expect(loadConfig({ env: {}, overrides: { queue: { maxAttempts: 9 } } }).queue).toMatchObject({ maxStepAttempts: 3, maxAttempts: 9 });
    expect(() => loadConfig({ env: { KM_MAX_STEP_ATTEMPTS: '6' }, overrides: { queue: { maxAttempts: 5 } } })).toThrow(
      'queue.maxAttempts must be greater than queue.maxStepAttempts',
    );
  });

  it('switches embeddings to OpenAI when a key or a compatible endpoint is set, and turns auth on with a key', () => {
    const key = 'x'.repeat(32);
    expect(loadConfig({ env: { OPENAI_API_KEY: 'sk-test' } }).embeddings.provider).toBe('openai');
    expect(loadConfig({ env: { KM_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', KM_EMBEDDINGS: 'local' } }).embeddings.provider).toBe(
      'local',
    );
    expect(loadConfig({ env: { KM_ACCESS_KEY1: key } }).auth).toEqual({ enabled: true, header: 'Authorization', keys: [key] });
  });

  it('reads a shared Qdrant or Elasticsearch memory DB from the environment', () => {
    expect(
      loadConfig({
        env: { KM_MEMORY_DB: 'qdrant', KM_QDRANT_URL: 'http://qdrant:6333', KM_QDRANT_API_KEY: 'k', KM_MEMORY_DB_PREFIX: 'km_' },
      }).memoryDb,
    ).toMatchObject({
      type: 'qdrant',
      qdrantUrl: 'http://qdrant:6333',
      qdrantApiKey: 'k',
      prefix: 'km_',
    });
    const es = {
      KM_MEMORY_DB: 'elasticsearch',
      KM_ELASTICSEARCH_URL: 'https://es:9200',
      KM_ELASTICSEARCH_USERNAME: 'elastic',
      KM_ELASTICSEARCH_PASSWORD: 'pw',
    };
    expect(loadConfig({ env: es }).memoryDb).toMatchObject({
      type: 'elasticsearch',
      elasticsearchUrl: 'https://es:9200',
      elasticsearchUsername: 'elastic',
      elasticsearchPassword: 'pw',
    });
  });

  it('reads the chosen queue connector settings from the environment, under the names its factory declares', () => {
    expect(loadConfig({ env: { KM_QUEUE: 'azure', AZURE_STORAGE_CONNECTION_STRING: 'UseDevelopmentStorage=true' } }).queue).toMatchObject({
      type: 'azure',
      azureConnectionString: 'UseDevelopmentStorage=true',
    });
    expect(loadConfig({ env: { KM_QUEUE: 'rabbitmq', KM_RABBITMQ_URL: 'amqps://broker:5671' } }).queue.rabbitmqUrl).toBe(
      'amqps://broker:5671',
    );
  });

  it.each([
    [{ KM_QUEUE: 'kafka' }, /queue.type must be one of "file", "memory", "rabbitmq", "azure"/],
    [
      { KM_QUEUE: 'azure' },
      /queue.type is azure but queue.azureConnectionString \(KM_AZURE_QUEUE_CONNECTION_STRING or AZURE_STORAGE_CONNECTION_STRING\) is not set/,
    ],
    [
      { KM_QUEUE: 'rabbitmq', KM_RABBITMQ_URL: 'http://broker' },
      /queue.rabbitmqUrl \(KM_RABBITMQ_URL\) is not an amqp:\/\/ or amqps:\/\/ URL/,
    ],
    [
      { KM_MEMORY_DB: 'postgres', KM_POSTGRES_URL: 'postgres://h/db', KM_POSTGRES_MAX_CONNECTIONS: '0' },
      /memoryDb.postgresMaxConnections \(KM_POSTGRES_MAX_CONNECTIONS\) must be an integer >= 1/,
    ],
  ])('refuses the queue and memory DB connector settings %j, naming the setting', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it.each([
    [{ KM_MEMORY_DB: 'milvus' }, /memoryDb.type \(KM_MEMORY_DB\) must be one of "simple", "postgres", "qdrant", "elasticsearch"/],
    [{ KM_MEMORY_DB: 'postgres,milvus', KM_POSTGRES_URL: 'postgres://h/db' }, /KM_MEMORY_DB\) must be one of .*, got "milvus"/],
    [{ KM_MEMORY_DB: 'postgres,,qdrant' }, /KM_MEMORY_DB\) has an empty entry in "postgres,,qdrant"/],
    [{ KM_MEMORY_DB: 'postgres, postgres', KM_POSTGRES_URL: 'postgres://h/db' }, /KM_MEMORY_DB\) names "postgres" twice/],
    [
      { KM_MEMORY_DB: 'postgres,qdrant', KM_POSTGRES_URL: 'postgres://h/db' },
      /memoryDb.type is qdrant but memoryDb.qdrantUrl \(KM_QDRANT_URL\) is not set/,
    ],
    [{ KM_CONTENT_STORAGE: 'ftp' }, /contentStorage.type \(KM_CONTENT_STORAGE\) must be one of "disk"/],
    [{ KM_MEMORY_DB: 'redis' }, /memoryDb.redisUrl \(KM_REDIS_URL\) is not set/],
    [{ KM_MEMORY_DB: 'redis', KM_REDIS_URL: 'http://cache:6379' }, /KM_REDIS_URL\)/],
    [{ KM_MEMORY_DB: 'mongodb' }, /memoryDb.mongodbUrl \(KM_MONGODB_URL\) is not set/],
    [
      { KM_MEMORY_DB: 'mongodb', KM_MONGODB_URL: 'mongodb://h', KM_MONGODB_NUM_CANDIDATES: '0' },
      /KM_MONGODB_NUM_CANDIDATES\) must be an integer >= 1/,
    ],
    [{ KM_MEMORY_DB: 'azureaisearch', KM_AZURE_SEARCH_ENDPOINT: 'https://s.search.windows.net' }, /KM_AZURE_SEARCH_API_KEY\) is not set/],
    [{ KM_MEMORY_DB: 'postgres' }, /KM_POSTGRES_URL/],
    [{ KM_MEMORY_DB: 'qdrant' }, /KM_QDRANT_URL/],
    [{ KM_MEMORY_DB: 'qdrant', KM_QDRANT_URL: 'qdrant:6333' }, /KM_QDRANT_URL\) is not an http/],
    [{ KM_MEMORY_DB: 'elasticsearch', KM_ELASTICSEARCH_URL: 'ftp://es' }, /KM_ELASTICSEARCH_URL\) is not an http/],
    [{ KM_MEMORY_DB: 'elasticsearch', KM_ELASTICSEARCH_URL: 'http://es:9200', KM_ELASTICSEARCH_USERNAME: 'elastic' }, /go together/],
  ])('refuses the memory DB settings %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it('accepts several memory DBs separated by commas, each with its own settings', () => {
    const env = { KM_MEMORY_DB: ' postgres , qdrant ', KM_POSTGRES_URL: 'postgres://h/db', KM_QDRANT_URL: 'http://qdrant:6333' };
    const { memoryDb } = loadConfig({ env });
    expect(memoryDb).toMatchObject({ type: 'postgres,qdrant', postgresUrl: 'postgres://h/db', qdrantUrl: 'http://qdrant:6333' });
  });

  it('reads the search mode and the reranker from the environment', () => {
    expect(loadConfig({ env: {} }).search).toEqual({ reranker: 'none' });
    expect(loadConfig({ env: { KM_SEARCH_MODE: 'Hybrid', KM_RERANKER: 'mmr' } }).search).toEqual({ mode: 'hybrid', reranker: 'mmr' });
    const env = { KM_RERANKER: 'cohere', KM_RERANKER_API_KEY: 'k', KM_RERANKER_MODEL: 'rerank-v3.5', KM_RERANKER_URL: 'http://proxy:8080' };
    expect(loadConfig({ env }).search).toEqual({
      reranker: 'cohere',
      rerankerApiKey: 'k',
      rerankerModel: 'rerank-v3.5',
      rerankerUrl: 'http://proxy:8080',
    });
  });

  it.each([
    [{ KM_SEARCH_MODE: 'semantic' }, /search.mode \(KM_SEARCH_MODE\) must be vector, lexical or hybrid, got "semantic"/],
    [{ KM_RERANKER: 'openai' }, /search.reranker \(KM_RERANKER\) must be one of none, mmr, cohere, jina, voyage, got "openai"/],
    [{ KM_RERANKER: 'voyage' }, /search.reranker is voyage but search.rerankerApiKey \(KM_RERANKER_API_KEY\) is not set/],
    [
      { KM_RERANKER: 'jina', KM_RERANKER_API_KEY: 'k', KM_RERANKER_URL: 'api.jina.ai' },
      /search.rerankerUrl \(KM_RERANKER_URL\) must be an http/,
    ],
    [{ KM_RERANKER_API_KEY: 'k' }, /search.rerankerApiKey is set but search.reranker \(KM_RERANKER\) is none/],
    [{ KM_RERANKER: 'mmr', KM_RERANKER_MODEL: 'x' }, /search.rerankerModel is set but search.reranker \(KM_RERANKER\) is mmr/],
  ])('refuses the search settings %j, naming the setting', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it('reads KM_ALLOWED_HOSTS and KM_ALLOWED_ORIGINS as comma-separated lists, empty by default', () => {
    expect(loadConfig({ env: {} })).toMatchObject({ allowedHosts: [], allowedOrigins: [] });
    const config = loadConfig({ env: { KM_ALLOWED_HOSTS: 'km.example.com, km ,', KM_ALLOWED_ORIGINS: 'https://app.example.com,*' } });
    expect(config.allowedHosts).toEqual(['km.example.com', 'km']);
    expect(config.allowedOrigins).toEqual(['https://app.example.com', '*']);
  });

  it('reads KM_SYNC_ROOTS split by the path delimiter and KM_WEB_ALLOW_PRIVATE_NETWORKS, off by default', () => {
    expect(loadConfig({ env: {} })).toMatchObject({ syncRoots: [], web: { allowPrivateNetworks: false } });
    const config = loadConfig({
      env: { KM_SYNC_ROOTS: ['/srv/docs', ' /srv/wiki ', ''].join(delimiter), KM_WEB_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    expect(config.syncRoots).toEqual(['/srv/docs', '/srv/wiki']);
    expect(config.web.allowPrivateNetworks).toBe(true);
    expect(() => loadConfig({ env: {}, overrides: { syncRoots: [''] } })).toThrow(/syncRoots \(KM_SYNC_ROOTS\)/);
  });

  it('keeps a second access key given alone in its place', () => {
    const key = 'k'.repeat(40);
    expect(loadConfig({ env: { KM_ACCESS_KEY2: key } }).auth).toMatchObject({ enabled: true, keys: ['', key] });
  });

  it.each([
    [{ KM_PORT: 'abc' }, /KM_PORT must be a number/],
    [{ KM_PORT: '70000' }, /port must be 0-65535/],
    [{ KM_ACCESS_KEY1: 'short' }, /auth\.keys\[0\] \(KM_ACCESS_KEY1\) must be at least 32 characters, got 5/],
    [{ KM_ACCESS_KEY1: 'k'.repeat(40), KM_ACCESS_KEY2: 'short' }, /auth\.keys\[1\] \(KM_ACCESS_KEY2\) must be at least 32/],
    [{ KM_ACCESS_KEY2: 'short' }, /\(KM_ACCESS_KEY2\) must be at least 32/],
    [{ KM_ALLOWED_ORIGINS: 'app.example.com' }, /allowedOrigins \(KM_ALLOWED_ORIGINS\): "app.example.com" is not an origin/],
    [{ KM_ALLOWED_ORIGINS: 'https://app.example.com/path' }, /KM_ALLOWED_ORIGINS/],
    [{ KM_AUTH_ENABLED: 'true' }, /no access key/],
    [{ KM_QUEUE: 'kafka' }, /queue.type/],
    [{ KM_QUEUE: 'memory', KM_RUN_HANDLERS: 'false' }, /no other process/],
    [{ KM_EMBEDDINGS: 'openai' }, /neither openai.apiKey/],
    [{ KM_RUN_HANDLERS: 'maybe' }, /true or false/],
    [{ KM_CONFIG: '/no/such/km.json' }, /cannot read the configuration file/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });
});
