import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import {
  HashingEmbeddingGenerator,
  InMemoryQueue,
  InMemoryQueueBroker,
  KernelMemoryBuilder,
  SimpleVectorDb,
  poisonQueueName,
  silentLogger,
  type IQueue,
} from '../src/index.js';
import { allRecords, cleanupAfterTests } from './helpers.js';

const { dirs, services } = cleanupAfterTests();

describe('a distributed orchestrator whose third queue fails to connect', () => {
  it('closes the queues it connected, spends no attempt on their messages, and starts on the next try', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-start-failure-'));
    dirs.push(dir);
    const broker = new InMemoryQueueBroker();
    const db = new SimpleVectorDb();
    const made: Array<{ step: string; queue: IQueue; closed: boolean }> = [];
    let failures = 1;
    const build = (factory: (step: string) => IQueue) => {
      const memory = new KernelMemoryBuilder()
        .withDataDirectory(dir)
        .withMemoryDb(db)
        .withEmbeddingGenerator(new HashingEmbeddingGenerator())
        .withLogger(silentLogger)
        .withQueueFactory(factory)
        .buildService();
      services.push(memory);
      return memory;
    };

    // A backlog: the first step's queue holds a message before the worker starts.
    const api = build(() => new InMemoryQueue({ broker }));
    await api.start({ runHandlers: false });
    await api.importText('Comets grow tails near the sun.', { documentId: 'doc' });
    await api.stop();
    expect(broker.size('extract')).toBe(1);

    const worker = build((step) => {
      const queue = new InMemoryQueue({ broker, maxAttempts: 2, retryDelayMs: 1 });
      const entry = { step, queue, closed: false };
      made.push(entry);
      const close = queue.close.bind(queue);
      queue.close = () => ((entry.closed = true), close());
      if (made.length === 3) {
        const connect = queue.connect.bind(queue);
        queue.connect = async (name, options) => {
          if (failures-- > 0) throw new Error('broker unreachable');
          return connect(name, options);
        };
      }
      return queue;
    });
    await expect(worker.start()).rejects.toThrow('broker unreachable');
    expect(made.map((m) => m.closed)).toEqual([true, true, true]);
    await sleep(100); // a consuming queue would have retried the message into its poison queue by now
    expect(broker.size(poisonQueueName('extract'))).toBe(0);
    expect(broker.size('extract')).toBe(1);
    expect(await worker.getDocumentStatus('doc')).toMatchObject({ failed: false, completed: false });

    await worker.start();
    await vi.waitFor(async () => expect(await worker.getDocumentStatus('doc')).toMatchObject({ completed: true, failed: false }), {
      timeout: 10_000,
      interval: 10,
    });
    expect(await allRecords(db)).toHaveLength(1);
  });
});
