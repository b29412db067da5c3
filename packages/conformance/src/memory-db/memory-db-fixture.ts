import type { IMemoryDb, MemoryDbCapabilities, MemoryRecord, TagCollection } from '@km/core';
import { DEFAULT_CAPABILITIES } from '@km/core/connector';
import { afterEach } from 'vitest';
import { randomName } from '../util/async.js';
import type { MemoryDbSuiteOptions } from './memory-db-suite-options.js';

/** A fresh connector instance, its capabilities (defaults applied) and an index name no other test uses. */
export interface MemoryDbFixture {
  db: IMemoryDb;
  index: string;
  capabilities: Required<MemoryDbCapabilities>;
}

/**
 * Registers cleanup for the current describe block and returns a function giving each test a
 * fresh instance and index; indexes the test used are deleted afterwards.
 */
export function memoryDbFixtures(options: MemoryDbSuiteOptions): () => Promise<MemoryDbFixture> {
  const used: Array<{ db: IMemoryDb; indexes: Set<string> }> = [];
  afterEach(async () => {
    for (const { db, indexes } of used.splice(0)) {
      for (const index of indexes) await db.deleteIndex(index).catch(() => undefined);
      await options.dispose?.(db);
    }
  });
  return async () => {
    const db = await options.create();
    const index = randomName('km-conf');
    used.push({ db, indexes: new Set([index]) });
    return { db, index, capabilities: { ...DEFAULT_CAPABILITIES, ...db.capabilities } };
  };
}

/** A record with the given vector, tags and payload. */
export function record(id: string, vector: number[], tags: TagCollection = {}, payload: Record<string, unknown> = {}): MemoryRecord {
  return { id, vector, tags, payload };
}

/** Upserts in one batch when the connector has one, else one by one. */
export async function upsertAll(db: IMemoryDb, index: string, records: MemoryRecord[]): Promise<string[]> {
  if (db.upsertBatch) return db.upsertBatch(index, records);
  const ids: string[] = [];
  for (const r of records) ids.push(await db.upsert(index, r));
  return ids;
}

/** The reason a test skips when the connector cannot search by vectors. */
export const NO_VECTOR_SEARCH = 'capability vectorSearch is off';
