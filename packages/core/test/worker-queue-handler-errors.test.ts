import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { FileQueue, InMemoryQueue, InMemoryQueueBroker, type IQueue, type QueueHandlerResult } from '../src/index.js';

const dirs: string[] = [];
const queues: IQueue[] = [];
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);
process.on('unhandledRejection', onRejection);
afterEach(async () => {
  for (const q of queues.splice(0)) await q.close();
});
afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const factories: Record<string, () => Promise<IQueue>> = {
  InMemoryQueue: async () => new InMemoryQueue({ broker: new InMemoryQueueBroker(), retryDelayMs: 5, maxAttempts: 5 }),
  FileQueue: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-queue-errors-'));
    dirs.push(dir);
    return new FileQueue({ directory: dir, pollIntervalMs: 20, retryDelayMs: 5, maxAttempts: 5, durable: false });
  },
};

/** Handlers that fail their first two deliveries in the two ways a careless handler can. */
const failures: Record<string, (attempt: number) => Promise<QueueHandlerResult>> = {
  'throws synchronously': (attempt) => {
    if (attempt <= 2) throw new Error(`sync failure ${attempt}`);
    return Promise.resolve('ok');
  },
  'returns a rejected promise': (attempt) => (attempt <= 2 ? Promise.reject(new Error(`async failure ${attempt}`)) : Promise.resolve('ok')),
};

describe.each(Object.keys(factories))('%s: a handler error', (kind) => {
  it.each(Object.keys(failures))('that %s is caught and the message retried, never an unhandled rejection', async (how) => {
    const queue = await factories[kind]!();
    queues.push(queue);
    const seen: string[] = [];
    queue.onDequeue((message) => {
      seen.push(message);
      return failures[how]!(seen.length);
    });
    await queue.connect('errors', { dequeue: true });
    await queue.enqueue('the message');
    await vi.waitFor(() => expect(seen).toHaveLength(3), { timeout: 10_000, interval: 10 });
    // Give a stray rejection the turns of the event loop it needs to surface.
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['the message', 'the message', 'the message']);
    expect(rejections).toEqual([]);
  });
});
