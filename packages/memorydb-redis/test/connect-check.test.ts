import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { RedisMemoryDb } from '../src/index.js';
import { whyNotPlainRedis } from '../src/testing.js';

// A real Redis without the query engine (this machine runs Redis 7.0.15 with no modules):
// the connector must refuse it at first use, with a typed error naming what it needs.
const url = process.env.KM_TEST_PLAIN_REDIS_URL ?? 'redis://127.0.0.1:6379';

const skip = await whyNotPlainRedis(url);
if (skip) console.log(`[km] skipped redis connect check: ${skip} (set KM_TEST_PLAIN_REDIS_URL to a Redis without the search module)`);

describe.skipIf(skip !== undefined)(`a Redis without the query engine (${url})`, () => {
  it('is refused at first use with not_configured, naming Redis 8 / Redis Stack / RediSearch 2.4+ and what the server has', async () => {
    const db = new RedisMemoryDb({ url });
    try {
      const error = await db.createIndex('notes', 3).catch((e: unknown) => e);
      expect(isKmError(error, 'not_configured')).toBe(true);
      expect((error as Error).message).toMatch(/^\[km\] \[redis\] km needs Redis 8, or Redis Stack \/ RediSearch 2\.4\+/);
      expect((error as Error).message).toMatch(/this server has Redis \d+\.\d+\.\d+ without the search module/);
      // Every later call is refused the same way, without another round of checks.
      await expect(db.getIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
    } finally {
      await db.close();
    }
  });
});
