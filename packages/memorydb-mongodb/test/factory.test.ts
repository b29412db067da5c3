import { readSettings, settingsFromEnv } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { mongoDbMemoryDbFactory } from '../src/factory.js';
import { collectionNameLimit, MongoDbMemoryDb } from '../src/index.js';

const read = (env: Record<string, string>) =>
  readSettings(mongoDbMemoryDbFactory as never, {
    env,
    section: settingsFromEnv([mongoDbMemoryDbFactory as never], env),
    sectionName: 'memoryDb',
  });

describe('mongoDbMemoryDbFactory', () => {
  it('reads KM_MONGODB_URL (mongodb: or mongodb+srv:), the database (default km), numCandidates and the prefix', () => {
    expect(read({ KM_MONGODB_URL: 'mongodb+srv://u:p@cluster0.example.net/' })).toEqual({
      mongodbUrl: 'mongodb+srv://u:p@cluster0.example.net/',
      mongodbDatabase: 'km',
    });
    expect(
      read({
        KM_MONGODB_URL: 'mongodb://127.0.0.1:27017',
        KM_MONGODB_DATABASE: 'mem',
        KM_MONGODB_NUM_CANDIDATES: '40',
        KM_MEMORY_DB_PREFIX: 'p-',
      }),
    ).toEqual({ mongodbUrl: 'mongodb://127.0.0.1:27017', mongodbDatabase: 'mem', mongodbNumCandidates: 40, prefix: 'p-' });
    expect(mongoDbMemoryDbFactory.settings.find((s) => s.key === 'mongodbUrl')).toMatchObject({ required: true, flag: '--mongodb-url' });
  });

  it('refuses a missing URL, an http URL and numCandidates below 1', () => {
    const envs: Array<Record<string, string>> = [
      {},
      { KM_MONGODB_URL: 'http://127.0.0.1:27017' },
      { KM_MONGODB_URL: 'mongodb://h', KM_MONGODB_NUM_CANDIDATES: '0' },
    ];
    for (const env of envs) {
      expect(() => read(env), JSON.stringify(env)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });

  it('builds a MongoDbMemoryDb with the settings (no connection until first use)', async () => {
    const db = await mongoDbMemoryDbFactory.create(read({ KM_MONGODB_URL: 'mongodb://127.0.0.1:1', KM_MEMORY_DB_PREFIX: 'p-' }), {
      logger: console as never,
    });
    expect(db).toBeInstanceOf(MongoDbMemoryDb);
    expect((db as MongoDbMemoryDb).collectionName('notes')).toBe('p-notes');
    await (db as MongoDbMemoryDb).close();
  });

  it('the connector needs a client or a url', () => {
    expect(() => new MongoDbMemoryDb({})).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('keeps the index name limit of the namespace, the batch size, the vector size ceiling and no zero vectors', async () => {
    const db = new MongoDbMemoryDb({ url: 'mongodb://127.0.0.1:1', database: 'kmdb', collectionPrefix: 'p-', batchSize: 7 });
    expect(db.driver.indexNameLimit).toEqual(collectionNameLimit('kmdb', 'p-'));
    expect(db.driver.maxBatchSize).toBe(7);
    expect(db.driver.maxVectorSize).toBe(8192);
    expect(db.capabilities).toMatchObject({ zeroVectors: false, lexicalSearch: false });
    expect(db.collectionName('notes')).toBe('p-notes');
    await db.close();
    for (const bad of [{ database: 'a.b' }, { collectionPrefix: 'system.' }]) {
      expect(() => new MongoDbMemoryDb({ url: 'mongodb://127.0.0.1:1', ...bad }), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});
