import { describe, expect, it } from 'vitest';
import { pollUntil } from '../src/util/poll-until.js';

describe('pollUntil', () => {
  const timedOut = () => new Error('not in time');

  it('returns the first value that is not undefined, calling again after each interval', async () => {
    let calls = 0;
    const value = await pollUntil(async () => (++calls < 3 ? undefined : `after ${calls}`), timedOut, { timeoutMs: 5_000, intervalMs: 5 });
    expect(value).toBe('after 3');
  });

  it('a falsy value other than undefined ends the wait', async () => {
    expect(await pollUntil(async () => 0, timedOut, { timeoutMs: 5_000, intervalMs: 5 })).toBe(0);
  });

  it('an error the attempt throws ends the wait with it', async () => {
    await expect(
      pollUntil(
        async () => {
          throw new Error('failed');
        },
        timedOut,
        { timeoutMs: 5_000, intervalMs: 5 },
      ),
    ).rejects.toThrow('failed');
  });

  it('rejects with timedOut() once the time is over, after one last attempt', async () => {
    let calls = 0;
    const started = Date.now();
    await expect(
      pollUntil(
        async () => {
          calls++;
          return undefined;
        },
        timedOut,
        { timeoutMs: 50, intervalMs: 10 },
      ),
    ).rejects.toThrow('not in time');
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(calls).toBeGreaterThan(1);
  });

  it('an aborted signal stops it, also while it waits', async () => {
    const aborted = AbortSignal.abort();
    await expect(pollUntil(async () => 'x', timedOut, { timeoutMs: 5_000, intervalMs: 5, signal: aborted })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const controller = new AbortController();
    const waiting = pollUntil(async () => undefined, timedOut, { timeoutMs: 5_000, intervalMs: 1_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });
});
