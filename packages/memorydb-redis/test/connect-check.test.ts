import { isKmError } from '@km/core';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { RedisMemoryDb, replyFields, replyList } from '../src/index.js';

// A real Redis without the query engine (this machine runs Redis 7.0.15 with no modules):
// the connector must refuse it at first use, with a typed error naming what it needs.
const url = process.env.KM_TEST_PLAIN_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Names the query engine registers as a module, in any of its editions and versions. */
const SEARCH_MODULES = new Set(['search', 'searchlight', 'ft']);

/** Why the test cannot run at `url`: nothing answers, MODULE LIST fails, or the server has the query engine; undefined for a plain Redis. */
async function whyNotPlainRedis(): Promise<string | undefined> {
  const client = createClient({ url, RESP: 2, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    return `nothing answers at ${url} (${(error as Error).message})`;
  }
  try {
    const names = replyList(await client.sendCommand(['MODULE', 'LIST'])).map((m) => String(replyFields(m).get('name') ?? ''));
    const search = names.find((name) => SEARCH_MODULES.has(name.toLowerCase()));
    return search ? `${url} has the query engine (module ${search}), it is not a plain Redis` : undefined;
  } catch (error) {
    return `MODULE LIST failed at ${url}: ${(error as Error).message}`;
  } finally {
    await client.close();
  }
}

const skip = await whyNotPlainRedis();
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
