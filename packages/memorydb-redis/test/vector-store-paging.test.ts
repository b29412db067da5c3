import { describe, expect, it } from 'vitest';
import { RedisVectorStoreDriver } from '../src/vector-store/redis-vector-store-driver.js';
import { Counter } from './vector-store-fixtures.js';

/**
 * A recording stand-in for the node-redis client: each HMGET is answered on a later turn of the
 * event loop, and the most HMGETs ever waiting for their answer at once is kept.
 */
function recordingClient(stored: (key: string) => boolean = () => true) {
  const state = { inFlight: 0, most: 0, hmgets: [] as string[], rounds: [] as number[], aggregates: 0 };
  let round = 0;
  const client = {
    async hmGet(key: string, fields: string[]) {
      state.hmgets.push(key);
      state.inFlight++;
      state.most = Math.max(state.most, state.inFlight);
      round++;
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (round > 0) {
        state.rounds.push(round);
        round = 0;
      }
      state.inFlight--;
      const id = key.slice(key.lastIndexOf(':') + 1);
      return stored(key) ? fields.map((f) => (f === 'counter_id' ? id : `l${id.padStart(5, '0')}`)) : fields.map(() => null);
    },
    ft: {
      async aggregateWithCursor(_index: string, _query: string, _options: unknown) {
        state.aggregates++;
        // Keys in no order, as FT.AGGREGATE returns them.
        return { results: Array.from({ length: 2500 }, (_, i) => ({ counter_id: String((i * 7) % 2500) })), cursor: 0 };
      },
    },
  };
  return { client, state };
}

function driverOver(client: unknown): RedisVectorStoreDriver {
  const driver = new RedisVectorStoreDriver({ url: 'redis://127.0.0.1:1' });
  // The connection the driver built is never opened: its client is replaced by the recording one.
  (driver as unknown as { connection: unknown }).connection = { ready: async () => {}, client, binary: client, close: async () => {} };
  return driver;
}

describe('get pages its HMGETs', () => {
  it('2500 keys: pages of 1000, each answered before the next is sent (at most one page in flight)', async () => {
    const { client, state } = recordingClient((key) => !key.endsWith(':7'));
    const keys = Array.from({ length: 2500 }, (_, i) => i);
    const records = await driverOver(client).get('c', Counter, keys, false);
    expect(state.hmgets).toHaveLength(2500);
    expect(state.most).toBe(1000);
    expect(state.rounds).toEqual([1000, 1000, 500]);
    // Missing hashes left out; the rest in the order asked.
    expect(records.map((r) => r.counter_id)).toEqual(keys.filter((k) => k !== 7));
  });

  it('fewer keys than a page: one round', async () => {
    const { client, state } = recordingClient();
    expect(await driverOver(client).get('c', Counter, [3, 1, 2], false)).toHaveLength(3);
    expect(state.rounds).toEqual([3]);
  });
});

describe('queryPages', () => {
  it('reads the keys whole, then yields the records a page of 1000 at a time, each page read when asked for', async () => {
    const { client, state } = recordingClient();
    const query = { filter: undefined, orderBy: [{ storageName: 'counter_id', descending: false }], limit: 2200, includeVectors: false };
    const pages: number[][] = [];
    for await (const page of driverOver(client).queryPages('c', Counter, query)) {
      expect(state.hmgets).toHaveLength(Math.min(1000 * (pages.length + 1), 2200));
      pages.push(page.map((r) => r.counter_id as number));
    }
    expect(state.aggregates).toBe(1);
    expect(pages.map((p) => p.length)).toEqual([1000, 1000, 200]);
    expect(pages.flat()).toEqual(Array.from({ length: 2200 }, (_, i) => i));
    expect(state.most).toBe(1000);
  });

  it('a caller that stops after the first page reads no more records', async () => {
    const { client, state } = recordingClient();
    const query = { filter: undefined, orderBy: [{ storageName: 'counter_id', descending: false }], limit: 5000, includeVectors: false };
    for await (const _ of driverOver(client).queryPages('c', Counter, query)) break;
    expect(state.hmgets).toHaveLength(1000);
  });
});
