import { mkdtemp, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  FileQueue,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  SimpleVectorDb,
  silentLogger,
  type Logger,
  type MemoryService,
} from '../src/index.js';
import { allRecords, cleanupAfterTests, waitUntilCompleted } from './helpers.js';

const { dirs, services } = cleanupAfterTests();

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
}

function service(dir: string, dbLogger: Logger) {
  const db = new SimpleVectorDb({ directory: join(dir, 'vectors'), durable: false, logger: dbLogger });
  const memory = new KernelMemoryBuilder()
    .withDataDirectory(dir)
    .withMemoryDb(db)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withLogger(silentLogger)
    .withQueueFactory(() => new FileQueue({ directory: join(dir, 'queues'), pollIntervalMs: 20, retryDelayMs: 10, durable: false }))
    .buildService();
  services.push(memory);
  return { memory, db };
}

const completed = (memory: MemoryService, id: string) => waitUntilCompleted(memory, id, 20);

describe('a torn tail of the vector log', () => {
  it('is logged with the record ids it dropped, and their document is saved again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-torn-log-'));
    dirs.push(dir);
    const first = service(dir, silentLogger);
    await first.memory.start();
    await first.memory.importText('Alpha: the first document talks about glaciers.', { documentId: 'doc-a' });
    await completed(first.memory, 'doc-a');
    await first.memory.importText('Beta: the second document talks about volcanoes.', { documentId: 'doc-b' });
    await completed(first.memory, 'doc-b');
    await first.memory.stop();
    await first.db.close();

    // A crash mid-write: the last entry (doc-b's record, written last) loses its end.
    const log = join(dir, 'vectors', 'default', 'records.log');
    await truncate(log, (await stat(log)).size - 100);

    const logger = capture();
    const second = service(dir, logger);
    await second.memory.start();
    expect((await allRecords(second.db)).map((r) => r.id)).not.toContainEqual(expect.stringMatching(/^d=doc-b\/\//));
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/torn log tail of \d+ bytes.*records dropped: d=doc-b\/\/p=/);

    // save_records runs again for doc-b, from its stored embeddings: nothing stays missing.
    await vi.waitFor(
      async () => expect((await allRecords(second.db)).map((r) => r.id.split('//')[0]).sort()).toEqual(['d=doc-a', 'd=doc-b']),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    await completed(second.memory, 'doc-b');
    const found = await second.memory.search('volcanoes', { minRelevance: 0 });
    expect(found.results[0]?.documentId).toBe('doc-b');
  });
});
