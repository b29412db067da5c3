import { isKmError } from '@km/core';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { RedisMemoryDb } from '../src/index.js';
import { startRespRecorder } from './resp-recorder.js';

// How the connector's own client connects: credentials from the URL, and a bounded wait for a
// server that is not there (a typed error, never a hang or an unhandled 'error' event).
describe('connection', () => {
  it('the password of the URL is sent with AUTH; WRONGPASS becomes unauthorized', async () => {
    const auth = await startRespRecorder((args) =>
      args[0] === 'AUTH' ? { error: 'WRONGPASS invalid username-password pair or user is disabled.' } : undefined,
    );
    try {
      const db = new RedisMemoryDb({ url: auth.url.replace('redis://', 'redis://km:secret@') });
      await expect(db.getIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
      expect(auth.commands.find((c) => c.args[0] === 'AUTH')?.args).toEqual(['AUTH', 'km', 'secret']);
      await db.close();
    } finally {
      await auth.close();
    }
  });

  it('a server that does not answer is a transient error after the configured attempts, not a hang or an unhandled error', async () => {
    const gone = await startRespRecorder(() => undefined);
    const url = gone.url;
    await gone.close();
    const db = new RedisMemoryDb({ url, connectRetries: 1 });
    const error = await db.getIndexes().catch((e: unknown) => e);
    expect(isKmError(error, 'transient')).toBe(true);
    await db.close();
  });

  it('a database other than 0 (the URL path, or a client of your own) is refused with not_configured before connecting; /0 is accepted', async () => {
    const server = await startRespRecorder((args) => {
      if (args[0] === 'MODULE') return [['name', 'search', 'ver', 80200]];
      if (args[0] === 'FT._LIST') return ['km-notes'];
      return undefined;
    });
    try {
      for (const db of [
        new RedisMemoryDb({ url: `${server.url}/2` }),
        new RedisMemoryDb({ url: `redis://km:secret@${server.url.slice('redis://'.length)}/2` }),
        new RedisMemoryDb({ client: createClient({ url: server.url, database: 2 }) }),
      ]) {
        const error = await db.getIndexes().catch((e: unknown) => e);
        expect(isKmError(error, 'not_configured')).toBe(true);
        expect((error as Error).message).toContain('database 0 only');
        expect((error as Error).message).toContain('this connection uses database 2');
        await db.close();
      }
      expect(server.commands).toEqual([]);
      const zero = new RedisMemoryDb({ url: `${server.url}/0` });
      expect(await zero.getIndexes()).toEqual(['notes']);
      expect(server.commands.map((c) => c.args[0])).not.toContain('SELECT');
      await zero.close();
    } finally {
      await server.close();
    }
  });
});
