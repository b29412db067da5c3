import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  DiskContentStorage,
  FileQueue,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  type Logger,
  SimpleVectorDb,
  stepQueueMaxAttempts,
} from '../src/index.js';
import { MISSING_STATE_ATTEMPTS, MissingStateTracker } from '../src/pipeline/missing-state.js';
import { isInternalFileName } from '../src/pipeline/internal-file-names.js';
import { cleanupAfterTests } from './helpers.js';

const { dirs, services } = cleanupAfterTests();
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-missing-'));
  dirs.push(d);
  return d;
};

/** A logger that keeps warnings and errors. */
function recordingLogger() {
  const lines: Array<{ level: 'warn' | 'error'; message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => lines.push({ level: 'warn', message, ...(fields ? { fields } : {}) }),
    error: (message, fields) => lines.push({ level: 'error', message, ...(fields ? { fields } : {}) }),
  };
  return { logger, lines };
}

/** A process of a distributed deployment: shared queues folder, its own content storage folder. */
function kmProcess(queues: string, files: string, logger: Logger) {
  const memory = new KernelMemoryBuilder()
    .withContentStorage(new DiskContentStorage({ directory: files }))
    .withMemoryDb(new SimpleVectorDb())
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withLogger(logger)
    .withQueueFactory(() => new FileQueue({ directory: queues, pollIntervalMs: 20, retryDelayMs: 10, durable: false }))
    .buildService();
  services.push(memory);
  return memory;
}

describe('a worker that does not share the content storage of the process that imported a document', () => {
  it('retries, then gives the step up with an error naming its own storage, and poisons the message (never silent)', async () => {
    const [queues, apiFiles, workerFiles] = [await tempDir(), await tempDir(), await tempDir()];
    const api = kmProcess(queues, apiFiles, recordingLogger().logger);
    await api.start({ runHandlers: false });
    await api.importText('A document the worker cannot see.', { documentId: 'lost' });

    const { logger, lines } = recordingLogger();
    const worker = kmProcess(queues, workerFiles, logger);
    await worker.start();
    await vi.waitFor(() => expect(lines.some((l) => l.level === 'error')).toBe(true), { timeout: 10_000, interval: 20 });

    const warnings = lines.filter((l) => l.level === 'warn' && /no saved state/.test(l.message));
    expect(warnings).toHaveLength(MISSING_STATE_ATTEMPTS - 1);
    const [error] = lines.filter((l) => l.level === 'error');
    expect(error!.message).toMatch(/step "extract" of document "lost" in index "default" found no saved state in DiskContentStorage at /);
    expect(error!.message).toContain(workerFiles);
    expect(error!.message).toMatch(/KM_CONTENT_STORAGE/);
    await vi.waitFor(async () => expect(await readdir(join(queues, 'extract-poison', 'ready'))).toHaveLength(1), { timeout: 5000 });
    // The importer's state is untouched: still waiting, not marked anything by the worker.
    expect(await api.getDocumentStatus('lost')).toMatchObject({ completed: false, failed: false });
  });
});

describe('a step whose document file is missing from the content storage', () => {
  it('is retried, then fails the document with a reason naming the storage (not at once, not in silence)', async () => {
    const [queues, files] = [await tempDir(), await tempDir()];
    const { logger, lines } = recordingLogger();
    const build = () => {
      const memory = new KernelMemoryBuilder()
        .withContentStorage(new DiskContentStorage({ directory: files }))
        .withMemoryDb(new SimpleVectorDb())
        .withEmbeddingGenerator(new HashingEmbeddingGenerator())
        .withLogger(logger)
        .withOrchestratorOptions({ retryBudgetMs: 200, retryDelayMs: 10 })
        // The queue's cap derived from the budget for its own delays, as a factory should: with the
        // default cap of 5, five quick deliveries could end before the budget (a race, not this case).
        .withQueueFactory(
          (_, settings) =>
            new FileQueue({
              directory: queues,
              pollIntervalMs: 20,
              retryDelayMs: 10,
              maxRetryDelayMs: 1000,
              maxAttempts: stepQueueMaxAttempts(3, settings.retryBudgetMs, { initialDelayMs: 10, maxDelayMs: 1000 }),
              durable: false,
            }),
        )
        .buildService();
      services.push(memory);
      return memory;
    };
    const api = build();
    await api.start({ runHandlers: false });
    await api.importText('A file that will vanish.', { documentId: 'vanished' });
    const storage = api.orchestrator.context.contentStorage;
    const uploaded = (await storage.listFiles('default', 'vanished')).find((f) => !isInternalFileName(f.name))!;
    await storage.deleteFile('default', 'vanished', uploaded.name);

    const worker = build();
    await worker.start();
    await vi.waitFor(async () => expect(await worker.getDocumentStatus('vanished')).toMatchObject({ failed: true }), {
      timeout: 10_000,
      interval: 20,
    });
    const status = await worker.getDocumentStatus('vanished');
    expect(status?.error).toMatch(
      /^step "extract" kept failing for .* \(retry budget 200 ms, \d+ attempts\): .*file "content.txt" .* not found \(in DiskContentStorage at /,
    );
    expect(status?.error).toContain(files);
    // Retried (not failed at once) until the budget was spent.
    expect(lines.filter((l) => l.level === 'warn' && l.message === 'step failed, will retry').length).toBeGreaterThan(0);
  });
});

describe('MissingStateTracker', () => {
  it('counts misses per pointer up to the limit, then starts again; a found state clears the count', () => {
    const tracker = new MissingStateTracker();
    const counts = Array.from({ length: MISSING_STATE_ATTEMPTS }, () => tracker.miss('a'));
    expect(counts).toEqual(Array.from({ length: MISSING_STATE_ATTEMPTS }, (_, i) => i + 1));
    expect(tracker.miss('a')).toBe(1);
    tracker.found('a');
    expect(tracker.miss('a')).toBe(1);
    expect(tracker.miss('b')).toBe(1);
  });
});
