import { describe, expect, it, vi } from 'vitest';
import { KmError, isKmError } from '../src/index.js';
import { BackoffPolicy, ConnectionKeeper } from '../src/connector.js';

/** A connection double: the keeper only opens, closes and is told a connection was lost. */
interface Connection {
  id: number;
  closed: boolean;
}

function keeper(failFirst: number) {
  const opened: Connection[] = [];
  let attempts = 0;
  const keep = new ConnectionKeeper<Connection>({
    open: async () => {
      if (attempts++ < failFirst) throw new KmError('transient', 'refused', { transient: true });
      const connection = { id: opened.length + 1, closed: false };
      opened.push(connection);
      return connection;
    },
    close: async (connection) => void (connection.closed = true),
    backoff: new BackoffPolicy({ initialDelayMs: 10, maxDelayMs: 40, jitter: 'none' }),
    names: { connector: 'test-mq', label: 'MQ' },
  });
  return { keep, opened, attempts: () => attempts };
}

describe('ConnectionKeeper', () => {
  it('opens one connection for all callers and reconnects with backoff after a loss', async () => {
    const { keep, opened, attempts } = keeper(0);
    const [a, b] = await Promise.all([keep.get(), keep.get()]);
    expect(a).toBe(b);
    expect(opened).toHaveLength(1);
    keep.lost(a, 'connection closed');
    expect(a.closed).toBe(true);
    await vi.waitFor(() => expect(opened).toHaveLength(2));
    expect(keep.isLost(a)).toBe(true);
    expect(await keep.get()).toBe(opened[1]);
    expect(attempts()).toBe(2);
    await keep.close();
    expect(opened[1]!.closed).toBe(true);
  });

  it('use() waits for a connection through transient failures, and gives up at its deadline with a transient error', async () => {
    const { keep, attempts } = keeper(3);
    expect(await keep.use(async (c) => c.id, { timeoutMs: 2000, what: 'publish' })).toBe(1);
    expect(attempts()).toBe(4);
    await keep.close();

    const never = keeper(Number.POSITIVE_INFINITY);
    const started = Date.now();
    const error = await never.keep.use(async () => 'never', { timeoutMs: 150, what: 'publish to "q"' }).catch((e: unknown) => e);
    expect(isKmError(error, 'transient')).toBe(true);
    expect((error as Error).message).toBe('[km] [test-mq] MQ: no publish to "q" within 150 ms');
    expect(Date.now() - started).toBeLessThan(1000);
    await never.keep.close();
  });

  it('use() gives up at its deadline even when a timeout signal never fires (one collected by the GC)', async () => {
    const lost = vi.spyOn(AbortSignal, 'timeout').mockImplementation(() => new AbortController().signal);
    try {
      const never = keeper(Number.POSITIVE_INFINITY);
      const error = await never.keep.use(async () => 'never', { timeoutMs: 100, what: 'publish' }).catch((e: unknown) => e);
      expect(isKmError(error, 'transient')).toBe(true);
      expect((error as Error).message).toMatch(/no publish within 100 ms/);
      await never.keep.close();
    } finally {
      lost.mockRestore();
    }
  }, 5000);

  it('use() rejects at once an error that is not transient, and with invalid_argument once closed', async () => {
    const { keep } = keeper(0);
    const refused = new KmError('unauthorized', 'no');
    await expect(keep.use(() => Promise.reject(refused), { timeoutMs: 5000, what: 'publish' })).rejects.toBe(refused);
    await keep.close();
    await expect(keep.use(async () => 1, { timeoutMs: 5000, what: 'publish' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('stops reconnecting when closed', async () => {
    const { keep, opened } = keeper(0);
    const connection = await keep.get();
    keep.lost(connection, 'cut');
    await keep.close();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(opened.length).toBeLessThanOrEqual(2);
    expect(opened.every((c) => c.closed)).toBe(true);
  });

  it('refuses a connection reported lost while it was opening, and opens another', async () => {
    let count = 0;
    const keep: ConnectionKeeper<Connection> = new ConnectionKeeper<Connection>({
      open: async () => {
        const connection = { id: ++count, closed: false };
        if (count === 1) keep.lost(connection, 'closed while opening');
        return connection;
      },
      close: async (connection) => void (connection.closed = true),
      backoff: new BackoffPolicy({ initialDelayMs: 10 }),
      names: { connector: 'test-mq', label: 'MQ' },
    });
    await expect(keep.get()).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient'));
    expect((await keep.get()).id).toBe(2);
    await keep.close();
  });
});
