import { isKmError, KmError } from '@km/core';
import { readSettings } from '@km/core/connector';
import { describe, expect, it, vi } from 'vitest';
import { SourceStreamError, translateStorageError } from '../src/content-storage/content-errors.js';
import { PostgresContentStorage, type PgPoolLike } from '../src/index.js';
import { postgresContentStorageFactory } from '../src/factory.js';

// The configuration and listeners of each pg.Pool the storage creates from a connectionString.
const pools: Array<{ config: Record<string, unknown>; errorListeners: () => number; ended: () => boolean }> = [];
vi.mock('pg', async (importOriginal) => {
  const { default: pg } = await importOriginal<typeof import('pg')>();
  class RecordingPool extends pg.Pool {
    constructor(config: Record<string, unknown>) {
      super(config);
      pools.push({ config, errorListeners: () => this.listenerCount('error'), ended: () => this.ended });
    }
  }
  return { default: { ...pg, Pool: RecordingPool } };
});

const logger = { debug() {}, info() {}, error() {}, warn: vi.fn() };
const pgError = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('translateStorageError', () => {
  it.each([
    ['28P01', 'password authentication failed for user "km"', 'unauthorized', false],
    ['28000', 'no pg_hba.conf entry for host', 'unauthorized', false],
    ['42501', 'permission denied for table km_files', 'unauthorized', false],
    ['53300', 'sorry, too many clients already', 'rate_limited', true],
    ['57P01', 'terminating connection due to administrator command', 'transient', true],
    ['40001', 'could not serialize access', 'transient', true],
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432', 'transient', true],
  ])('SQLSTATE or socket code %s becomes %s', (code, message, kmCode, transient) => {
    const translated = translateStorageError(pgError(code, message));
    expect(isKmError(translated, kmCode as never)).toBe(true);
    expect((translated as KmError).transient).toBe(transient);
    expect((translated as KmError).connector).toBe('postgres');
  });

  it('a driver error without SQLSTATE saying the connection ended is transient', () => {
    expect(isKmError(translateStorageError(new Error('Connection terminated unexpectedly')), 'transient')).toBe(true);
  });

  it('a statement error (a bug) and a km error come back unchanged; a stream error comes back as the caller threw it', () => {
    const syntax = pgError('42601', 'syntax error at or near "terminating connection"');
    expect(translateStorageError(syntax)).toBe(syntax);
    const km = new KmError('write_conflict', 'lost', { transient: true });
    expect(translateStorageError(km)).toBe(km);
    const source = new Error('upload cut');
    expect(translateStorageError(new SourceStreamError(source))).toBe(source);
  });
});

describe('PostgresContentStorage connections', () => {
  it('refuses options without a pool, a connectionString or a pglite, and a prefix PostgreSQL would cut', () => {
    expect(() => new PostgresContentStorage({})).toThrow(/pool, a connectionString or a pglite/);
    expect(() => new PostgresContentStorage({ connectionString: 'postgres://x/y', tablePrefix: 'p'.repeat(60) })).toThrow(/63 bytes/);
    expect(() => new PostgresContentStorage({ connectionString: 'postgres://x/y', chunkBytes: 0 })).toThrow(/chunkBytes/);
  });

  it('says where its files live without the credentials', () => {
    const storage = new PostgresContentStorage({ connectionString: 'postgres://km:s3cret@db.example:5433/files?sslmode=require' });
    expect(storage.location).toBe('postgres://db.example:5433/files, table "public"."km_files"');
    expect(storage.location).not.toContain('s3cret');
  });

  it('the pool it builds has an error listener and the memory DB pool settings; close() ends it; a refused connection is transient', async () => {
    pools.length = 0;
    const storage = new PostgresContentStorage({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectionTimeoutMs: 2000,
      maxConnections: 3,
      logger,
    });
    await expect(storage.listIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient'));
    expect(pools).toHaveLength(1);
    expect(pools[0]!.config).toMatchObject({ max: 3, keepAlive: true, keepAliveInitialDelayMillis: 10_000, query_timeout: 60_000 });
    expect(pools[0]!.errorListeners()).toBe(1);
    await storage.close();
    expect(pools[0]!.ended()).toBe(true);
  });

  it('a pool given in gets an error listener only when it has none, and is left open by close()', async () => {
    const listeners: Array<(e: Error) => void> = [];
    const pool: PgPoolLike = {
      query: vi.fn(async () => ({ rows: [] })),
      connect: vi.fn(async () => ({ query: vi.fn(async () => ({ rows: [] })), release: vi.fn() })),
      end: vi.fn(async () => undefined),
      on: (_event, listener) => listeners.push(listener),
      listenerCount: () => listeners.length,
    };
    const storage = new PostgresContentStorage({ pool, logger });
    expect(await storage.listIndexes()).toEqual([]);
    expect(listeners).toHaveLength(1);
    listeners[0]!(new Error('idle connection lost'));
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('idle connection lost'));
    await storage.close();
    expect(pool.end).not.toHaveBeenCalled();
  });
});

describe('postgresContentStorageFactory', () => {
  it('reads KM_POSTGRES_URL (required), the table prefix (default km_) and the pool size', async () => {
    const factory = postgresContentStorageFactory;
    expect(factory.type).toBe('postgres');
    const read = (env: Record<string, string>) => readSettings(factory, { env, section: envSection(env), sectionName: 'contentStorage' });
    expect(() => read({})).toThrow(/KM_POSTGRES_URL/);
    expect(read({ KM_POSTGRES_URL: 'postgres://km@db:5432/km' })).toMatchObject({
      postgresUrl: 'postgres://km@db:5432/km',
      postgresContentTablePrefix: 'km_',
      postgresMaxConnections: 10,
    });
    const settings = read({
      KM_POSTGRES_URL: 'postgres://km@db:5432/km',
      KM_POSTGRES_CONTENT_TABLE_PREFIX: 'files_',
      KM_POSTGRES_MAX_CONNECTIONS: '4',
    });
    expect(settings).toMatchObject({ postgresContentTablePrefix: 'files_', postgresMaxConnections: 4 });
    const storage = await factory.create(settings, { logger });
    expect(storage).toBeInstanceOf(PostgresContentStorage);
    expect(factory.settings.some((s) => s.flag)).toBe(false); // --postgres-url is the memory DB's flag
  });
});

/** The environment as the host turns it into a configuration section. */
function envSection(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const setting of postgresContentStorageFactory.settings) {
    const value = setting.env.map((name) => env[name]).find((v) => v !== undefined);
    if (value !== undefined) out[setting.key] = value;
  }
  return out;
}
