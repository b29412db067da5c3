import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whyNotPlainRedis } from '../src/testing.js';
import { bytesOf, type Fixture } from './fixtures/compat-scenario.js';

// The fixture's stored hashes are what a real Redis holds after km 0.x's writes: its recorded
// DEL / HSET / SET commands (the FT.* ones need the query engine and are left out) replayed on
// a plain Redis (this machine runs Redis 7.0 without modules), under a key namespace of their
// own, read back with HGETALL and GET. It checks the fake query engine's hash semantics, on
// which the compatibility test relies.
const url = process.env.KM_TEST_PLAIN_REDIS_URL ?? 'redis://127.0.0.1:6379';
const skip = await whyNotPlainRedis(url);
if (skip) console.log(`[km] skipped the replay of the redis fixture: ${skip} (set KM_TEST_PLAIN_REDIS_URL to a Redis)`);

const fixture = JSON.parse(await readFile(new URL('./fixtures/km-redis-v0.json', import.meta.url), 'utf8')) as Fixture;
const DATA = new Set(['DEL', 'HSET', 'SET']);

describe.skipIf(skip !== undefined)(`km 0.x's writes replayed on a real Redis (${url})`, () => {
  const client = createClient({ url, RESP: 2 });
  const namespace = `kmcompat-${randomUUID().slice(0, 8)}:`;
  beforeAll(async () => {
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    for await (const keys of client.scanIterator({ MATCH: `${namespace}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  for (const [name, configuration] of Object.entries(fixture.configurations)) {
    it(`hold the stored hashes and keys (${name})`, async () => {
      const prefix = `${namespace}${name.replace(/\W+/g, '_')}:`;
      const snapshot = configuration.steps.findIndex((s) => s.step === 'upsert into a missing index');
      for (const step of configuration.steps.slice(0, snapshot + 1)) {
        for (const command of step.commands) {
          const [verb, key, ...rest] = command.map(bytesOf);
          if (!DATA.has(verb!.toString().toUpperCase())) continue;
          await client.sendCommand([verb!, Buffer.concat([Buffer.from(prefix), key!]), ...rest]);
        }
      }
      const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
      for (const [key, fields] of Object.entries(configuration.stored.hashes)) {
        const held = (await binary.hGetAll(`${prefix}${key}`)) as unknown as Record<string, Buffer>;
        expect(Object.keys(held).sort(), key).toEqual(Object.keys(fields).sort());
        for (const [field, value] of Object.entries(fields)) expect(held[field]!.equals(bytesOf(value)), `${key} ${field}`).toBe(true);
      }
      for (const [key, value] of Object.entries(configuration.stored.strings)) expect(await client.get(`${prefix}${key}`)).toBe(value);
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
      const expected = [...Object.keys(configuration.stored.hashes), ...Object.keys(configuration.stored.strings)].map(
        (k) => `${prefix}${k}`,
      );
      expect(keys.sort()).toEqual(expected.sort());
    });
  }
});
