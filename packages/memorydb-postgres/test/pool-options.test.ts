import { isKmError } from '@km/core';
import { describe, expect, it, vi } from 'vitest';
import { PostgresMemoryDb } from '../src/index.js';

// The configuration of each pg.Pool the connector creates from a connectionString.
const poolConfigs: Record<string, unknown>[] = [];
vi.mock('pg', async (importOriginal) => {
  const { default: pg } = await importOriginal<typeof import('pg')>();
  class RecordingPool extends pg.Pool {
    constructor(config: Record<string, unknown>) {
      poolConfigs.push(config);
      super(config);
    }
  }
  return { default: { ...pg, Pool: RecordingPool } };
});

const logger = { debug() {}, info() {}, error() {}, warn() {} };
/** Connects to a closed port (the connection is refused), so only the pool's configuration matters. */
async function poolConfigOf(options: { queryTimeoutMs?: number }) {
  poolConfigs.length = 0;
  const db = new PostgresMemoryDb({
    connectionString: 'postgres://postgres@127.0.0.1:1/none',
    connectionTimeoutMs: 2000,
    logger,
    ...options,
  });
  await expect(db.getIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient'));
  await db.close();
  expect(poolConfigs).toHaveLength(1);
  return poolConfigs[0]!;
}

describe('the pool made from a connectionString', () => {
  it('probes idle sockets after 10 s (not the OS default of 2 h) and bounds each query by 60 s by default', async () => {
    expect(await poolConfigOf({})).toMatchObject({ keepAlive: true, keepAliveInitialDelayMillis: 10_000, query_timeout: 60_000 });
  });

  it('takes queryTimeoutMs; 0 means no limit', async () => {
    expect(await poolConfigOf({ queryTimeoutMs: 1500 })).toMatchObject({ query_timeout: 1500 });
    expect((await poolConfigOf({ queryTimeoutMs: 0 })).query_timeout).toBeUndefined();
  });
});
