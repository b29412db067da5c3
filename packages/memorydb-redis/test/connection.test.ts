import { isKmError } from '@km/core';
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
});
