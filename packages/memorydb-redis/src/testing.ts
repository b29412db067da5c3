// @km/memorydb-redis/testing: support for tests that need a Redis *without* the query engine; not part of the connector's API.
import { createClient } from 'redis';
import { replyFields, replyList } from './reply-fields.js';

/** Names the query engine registers as a module, in any of its editions and versions. */
const SEARCH_MODULES = new Set(['search', 'searchlight', 'ft']);

/**
 * Why a test that needs a Redis without the query engine cannot run at `url`: nothing answers,
 * MODULE LIST fails, or the server has the query engine (e.g. a developer's `redis:8` on
 * 127.0.0.1:6379); undefined for a plain Redis.
 */
export async function whyNotPlainRedis(url: string): Promise<string | undefined> {
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
