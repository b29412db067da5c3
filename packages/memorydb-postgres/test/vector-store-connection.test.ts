import { defineRecord, isKmError, type Logger } from '@km/core';
import { describe, expect, it } from 'vitest';
import { PostgresVectorStore } from '../src/index.js';
import { useProxiedDatabase } from './proxied-database.js';

// PostgresVectorStore through `pg` over TCP (PGlite served by startPgliteServer) behind a proxy
// that can cut every connection, as a restart, a failover or an idle timeout would.
const database = useProxiedDatabase();

const Visit = defineRecord({
  key: { name: 'visitId', type: 'integer', storageName: 'visit_id' },
  data: {
    guests: { type: 'integer', filterable: true },
    at: { type: 'date', filterable: true },
    scores: { type: 'number[]', filterable: true },
    note: { type: 'string', optional: true },
  },
  vectors: { embedding: { dimensions: 3, distance: 'euclidean' } },
});

describe('PostgresVectorStore through pg', () => {
  it('reads back bigint, dates and arrays as pg returns them (bigint as text), and survives cut and lost connections', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
    const store = new PostgresVectorStore({
      connectionString: database.url,
      maxConnections: 1,
      connectionTimeoutMs: 2000,
      retry: { maxRetries: 6, initialDelayMs: 200, maxDelayMs: 2000 },
      logger,
    });
    try {
      const visits = store.getCollection('visits', Visit);
      await visits.ensureExists();
      const at = new Date('2026-11-27T10:00:00.123Z');
      await visits.upsert([
        { visitId: 9007199254740991, guests: 2, at, scores: [0.5, 2], note: 'it\'s "quoted"', embedding: [1, 0, 0] },
        { visitId: 2, guests: 40, at: new Date('2025-01-01T00:00:00Z'), scores: [], note: null, embedding: [0, 3, 4] },
      ]);
      expect(await visits.get(9007199254740991)).toEqual({
        visitId: 9007199254740991,
        guests: 2,
        at,
        scores: [0.5, 2],
        note: 'it\'s "quoted"',
      });
      const hits = await visits.search([0, 0, 0], { top: 5, filter: { guests: { lt: 10 }, scores: { contains: 2 } } });
      expect(hits).toEqual([{ record: expect.objectContaining({ visitId: 9007199254740991 }), score: 1 }]);

      // Idle connections die: pg reports them on the pool, which must not be uncaught; the next call works.
      expect(database.cut()).toBeGreaterThan(0);
      expect((await visits.search([0, 3, 4], { top: 1 })).map((h) => [h.record.visitId, h.score])).toEqual([[2, 0]]);

      // The database goes away, and is back while a call keeps retrying: the call succeeds.
      database.cut();
      await database.stop();
      const during = visits.getMany([2, 9007199254740991]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await database.restart();
      expect((await during).map((r) => r.visitId)).toEqual([2, 9007199254740991]);
      expect(warnings.some((w) => w.includes('postgres request failed, retrying'))).toBe(true);
      expect(database.uncaught).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('fails as transient, not with an empty answer, when the database stays down past the retries', async () => {
    const store = new PostgresVectorStore({
      connectionString: database.url,
      maxConnections: 1,
      connectionTimeoutMs: 2000,
      retry: { maxRetries: 1, initialDelayMs: 10, maxDelayMs: 10 },
      logger: { debug() {}, info() {}, error() {}, warn() {} },
    });
    try {
      const visits = store.getCollection('visits', Visit);
      expect(await visits.exists()).toBe(true);
      database.cut();
      await database.stop();
      const transient = (e: unknown) => isKmError(e, 'transient') && (e as { transient: boolean }).transient;
      await expect(visits.get(2)).rejects.toSatisfy(transient);
      await expect(visits.search([1, 1, 1])).rejects.toSatisfy(transient);
      await expect(visits.upsert({ visitId: 3, guests: 1, at: new Date(), scores: [], embedding: [1, 1, 1] })).rejects.toSatisfy(transient);
      await expect(store.listCollections()).rejects.toSatisfy(transient);
    } finally {
      await database.restart();
      await store.close();
    }
  });
});
