import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  FileQueue,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  SimpleVectorDb,
  silentLogger,
  type IQueue,
  type MemoryService,
} from '../src/index.js';
import { allRecords } from './helpers.js';

const dirs: string[] = [];
const services: MemoryService[] = [];
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);
process.on('unhandledRejection', onRejection);
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop({ drainTimeoutMs: 0 });
});
afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A real FileQueue whose connect is slow for every step but the first, as a busy disk or broker makes it. */
function slowToConnect(directory: string, firstStep: string): (step: string) => IQueue {
  return (step) => {
    const queue = new FileQueue({ directory, pollIntervalMs: 20, retryDelayMs: 10, durable: false });
    if (step === firstStep) return queue;
    const connect = queue.connect.bind(queue);
    queue.connect = async (name, options) => {
      await sleep(150);
      return connect(name, options);
    };
    return queue;
  };
}

function service(dir: string, slow: boolean) {
  const db = new SimpleVectorDb({ directory: join(dir, 'vectors'), durable: false });
  const queues = join(dir, 'queues');
  const memory = new KernelMemoryBuilder()
    .withDataDirectory(dir)
    .withMemoryDb(db)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withLogger(silentLogger)
    .withQueueFactory(
      slow ? slowToConnect(queues, 'extract') : () => new FileQueue({ directory: queues, pollIntervalMs: 20, durable: false }),
    )
    .buildService();
  services.push(memory);
  return { memory, db };
}

describe('a worker started on a queue backlog', () => {
  it('connects every step queue before it consumes, and finishes the whole backlog', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-backlog-'));
    dirs.push(dir);
    const api = service(dir, false).memory;
    await api.start({ runHandlers: false });
    for (let i = 0; i < 4; i++) await api.importText(`Backlog document ${i} about comets and tails.`, { documentId: `doc-${i}` });
    await api.stop();

    // The first step's queue already holds four messages when the worker starts.
    const { memory: worker, db } = service(dir, true);
    await worker.start();
    for (let i = 0; i < 4; i++) {
      await vi.waitFor(async () => expect(await worker.getDocumentStatus(`doc-${i}`)).toMatchObject({ completed: true, failed: false }), {
        timeout: 15_000,
        interval: 25,
      });
    }
    expect(await allRecords(db)).toHaveLength(4);
    expect(rejections).toEqual([]);
  });
});
