import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type IContentStorage, type IMemoryDb, KmError, MemoryContentStorage, SimpleVectorDb } from '@km/core';
import { afterAll, describe, expect, it } from 'vitest';
import { startService, startWorker } from '../src/index.js';
import { probeBackends } from '../src/startup-probe.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-probe-'));
  dirs.push(d);
  return d;
};

/** A memory DB whose listing fails as told; everything else is the embedded SimpleVectorDb. */
function failingDb(error: () => Error, onClose?: () => void): IMemoryDb {
  const db = new SimpleVectorDb();
  return Object.assign(Object.create(db) as IMemoryDb, {
    getIndexes: async () => {
      throw error();
    },
    close: async () => onClose?.(),
  });
}

const notConfigured = () => new KmError('not_configured', 'km needs Redis 8, or Redis Stack / RediSearch 2.4+', { connector: 'redis' });
const unreachable = () => new KmError('transient', 'connect ECONNREFUSED 127.0.0.1:6379', { transient: true });

describe('the backend check at start', () => {
  it('refuses to start the service on a memory DB that can never work, with its error, and closes it', async () => {
    let closed = false;
    const start = startService({
      overrides: { port: 0, dataDirectory: await tempDir(), embeddings: { provider: 'hashing' } },
      configure: (builder) => builder.withMemoryDb(failingDb(notConfigured, () => (closed = true))),
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
    });
    await expect(start).rejects.toMatchObject({ code: 'not_configured', message: expect.stringMatching(/RediSearch 2\.4/) });
    expect(closed).toBe(true);
  });

  it('refuses to start on a content storage that can never work (refused credentials), naming it', async () => {
    const storage = Object.assign(Object.create(new MemoryContentStorage()) as IContentStorage, {
      listIndexes: async () => {
        throw new KmError('unauthorized', 'the storage account refused the key', { connector: 'azureblobs' });
      },
    });
    const start = startService({
      overrides: { port: 0, dataDirectory: await tempDir(), embeddings: { provider: 'hashing' } },
      configure: (builder) => builder.withContentStorage(storage),
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
    });
    await expect(start).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/refused the key/) });
  });

  it('refuses to start a worker the same way', async () => {
    const start = startWorker({
      overrides: { dataDirectory: await tempDir(), embeddings: { provider: 'hashing' } },
      configure: (builder) => builder.withMemoryDb(failingDb(notConfigured)),
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
    });
    await expect(start).rejects.toMatchObject({ code: 'not_configured' });
  });

  it('starts when the memory DB is only unreachable for now, and says so in the log', async () => {
    const logs: string[] = [];
    const service = await startService({
      overrides: { port: 0, dataDirectory: await tempDir(), logLevel: 'info', embeddings: { provider: 'hashing' } },
      configure: (builder) => builder.withMemoryDb(failingDb(unreachable)),
      logDestination: new Writable({ write: (c: Buffer, _e, done) => (logs.push(...c.toString().split('\n').filter(Boolean)), done()) }),
    });
    try {
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
      expect(logs.some((l) => /not reachable at start .*ECONNREFUSED.*retries on use/.test(l))).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('goes on without an answer after the timeout', async () => {
    const silent = Object.assign(Object.create(new SimpleVectorDb()) as IMemoryDb, {
      getIndexes: () => new Promise<string[]>(() => undefined),
    });
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (m: string) => warnings.push(m) };
    await probeBackends([{ name: 'memory DB Silent', check: () => silent.getIndexes() }], logger, 20);
    expect(warnings).toEqual([expect.stringMatching(/did not answer within 20 ms/)]);
  });
});
