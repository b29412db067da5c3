import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimpleVectorDb, silentLogger } from '@km/core';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, memoryDbsFromConfig } from '../src/index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function dataDirectory(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'km-simple-settings-'));
  dirs.push(d);
  return d;
}

describe('settings of the embedded SimpleVectorDb', () => {
  it('leaves the embedded DB to the builder when nothing is tuned', async () => {
    expect(await memoryDbsFromConfig(loadConfig({ env: {} }).memoryDb, { logger: silentLogger })).toEqual([]);
  });

  it('builds it in {dataDirectory}/vectors with int8 quantisation from KM_SIMPLE_VECTOR_DB_QUANTIZATION', async () => {
    const dir = await dataDirectory();
    const config = loadConfig({ env: { KM_SIMPLE_VECTOR_DB_QUANTIZATION: 'int8' } });
    const [db] = (await memoryDbsFromConfig(config.memoryDb, { logger: silentLogger, dataDirectory: dir })) as [SimpleVectorDb];
    expect(db).toBeInstanceOf(SimpleVectorDb);
    await db.upsert('notes', { id: 'a', vector: [1, 0, 0], tags: {}, payload: {} });
    expect(db.vectorIndex('notes')?.quantization).toBe('int8');
    await db.close();
    const reopened = new SimpleVectorDb({ directory: join(dir, 'vectors') });
    expect(await reopened.count('notes')).toBe(1);
    await reopened.close();
  });

  it('turns quantisation off with none, and HNSW off with a minimum of 0', async () => {
    const config = loadConfig({
      env: { KM_SIMPLE_VECTOR_DB_QUANTIZATION: 'none', KM_SIMPLE_VECTOR_DB_HNSW_MIN_RECORDS: '0', KM_SIMPLE_VECTOR_DB_SCAN_THREADS: '0' },
    });
    const [db] = (await memoryDbsFromConfig(config.memoryDb, { logger: silentLogger, dataDirectory: await dataDirectory() })) as [
      SimpleVectorDb,
    ];
    await db.upsert('notes', { id: 'a', vector: [1, 0, 0], tags: {}, payload: {} });
    expect(db.vectorIndex('notes')?.quantization).toBe('none');
    await db.close();
  });

  it('refuses an unknown quantisation by its variable', () => {
    expect(() => loadConfig({ env: { KM_SIMPLE_VECTOR_DB_QUANTIZATION: 'int4' } })).toThrow(
      /KM_SIMPLE_VECTOR_DB_QUANTIZATION\) must be int8 or none, got "int4"/,
    );
  });

  it('refuses a negative thread count by its variable', () => {
    expect(() => loadConfig({ env: { KM_SIMPLE_VECTOR_DB_SCAN_THREADS: '-1' } })).toThrow(/KM_SIMPLE_VECTOR_DB_SCAN_THREADS/);
  });

  it('builds the embedded DB next to a shared one, each with its own settings', async () => {
    const config = loadConfig({
      env: { KM_MEMORY_DB: 'simple,postgres', KM_POSTGRES_URL: 'postgres://u:p@127.0.0.1:1/km', KM_SIMPLE_VECTOR_DB_QUANTIZATION: 'int8' },
    });
    const dbs = await memoryDbsFromConfig(config.memoryDb, { logger: silentLogger, dataDirectory: await dataDirectory() });
    expect(dbs[0]).toBeInstanceOf(SimpleVectorDb);
    await (dbs[0] as SimpleVectorDb).upsert('notes', { id: 'a', vector: [1, 0, 0], tags: {}, payload: {} });
    expect((dbs[0] as SimpleVectorDb).vectorIndex('notes')?.quantization).toBe('int8');
    for (const db of dbs) await (db as unknown as { close(): Promise<void> }).close();
  });
});
