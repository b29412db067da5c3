import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { RedisVectorStore } from '../src/index.js';
import { whyNotPlainRedis } from '../src/testing.js';
import { Hotel } from './vector-store-fixtures.js';

// A real Redis without the query engine (this machine runs Redis 7.0.15 with no modules): the
// vector store must refuse it at first use through core's VectorStore, with a typed error.
const url = process.env.KM_TEST_PLAIN_REDIS_URL ?? 'redis://127.0.0.1:6379';

const skip = await whyNotPlainRedis(url);
if (skip)
  console.log(`[km] skipped redis vector store connect check: ${skip} (set KM_TEST_PLAIN_REDIS_URL to a Redis without the search module)`);

describe.skipIf(skip !== undefined)(`RedisVectorStore on a Redis without the query engine (${url})`, () => {
  it('ensureExists, upsert, search and listCollections are refused with not_configured naming what is needed', async () => {
    const store = new RedisVectorStore({ url, collectionPrefix: 'kmvscheck-' });
    try {
      const hotels = store.getCollection('hotels', Hotel);
      const calls = [
        () => hotels.ensureExists(),
        () => hotels.upsert({ hotelId: 'h1', name: 'x', embedding: [1, 0, 0] }),
        () => hotels.search([1, 0, 0], { vectorProperty: 'embedding' }),
        () => store.listCollections(),
      ];
      for (const call of calls) {
        const error = await call().catch((e: unknown) => e);
        expect(isKmError(error, 'not_configured')).toBe(true);
        expect((error as Error).message).toContain('km needs Redis 8, or Redis Stack / RediSearch 2.4+');
      }
    } finally {
      await store.close();
    }
  });
});
