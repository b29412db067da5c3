import { describe, expect, it } from 'vitest';
import { KmError, MemoryContentStorage } from '@km/core';
import { expectProblem, useTestService } from './helpers.js';

/** Content storage that is down while `down` holds an error, as a connector raises it. */
class FlakyStorage extends MemoryContentStorage {
  down: KmError | undefined;
  override async readFile(...args: Parameters<MemoryContentStorage['readFile']>) {
    if (this.down) throw this.down;
    return super.readFile(...args);
  }
  override async readFileVersion(...args: Parameters<NonNullable<MemoryContentStorage['readFileVersion']>>) {
    if (this.down) throw this.down;
    return super.readFileVersion!(...args);
  }
}

describe('a backend down', () => {
  const storage = new FlakyStorage();
  const service = useTestService({ configure: (b) => b.withContentStorage(storage) });
  const status = () => fetch(`${service().url}/upload-status?index=docs&documentId=doc1`);

  it('answers 503 with the Retry-After the backend asked for, rounded up to seconds', async () => {
    storage.down = new KmError('rate_limited', 'throttled', { transient: true, retryAfterMs: 6500, connector: 's3' });
    const res = await status();
    expect(res.headers.get('retry-after')).toBe('7');
    await expectProblem(res, 503, /throttled/);
  });

  it('answers 503 with a default Retry-After of 5 seconds when the backend gave none', async () => {
    storage.down = new KmError('transient', 'connection refused', { transient: true, connector: 'postgres' });
    const res = await status();
    expect(res.headers.get('retry-after')).toBe('5');
    await expectProblem(res, 503, /connection refused/);
  });

  it('answers without Retry-After once it is back', async () => {
    storage.down = undefined;
    const res = await status();
    expect(res.status).toBe(404);
    expect(res.headers.get('retry-after')).toBeNull();
  });
});

describe('the OpenAPI document', () => {
  const service = useTestService();

  it('describes the Retry-After of a 503', async () => {
    const doc = (await (await fetch(`${service().url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    expect(doc.paths['/search']!.post!.responses['503']!.headers).toHaveProperty('Retry-After');
  });
});
