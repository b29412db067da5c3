import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  FileQueue,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  SimpleVectorDb,
  silentLogger,
  type DataPipeline,
  type IPipelineStepHandler,
  type MemoryService,
  type StepFinishedEvent,
  type StepOutcome,
} from '../src/index.js';
import { allRecords, cleanupAfterTests } from './helpers.js';

const { dirs, services } = cleanupAfterTests();
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-svc-'));
  dirs.push(d);
  return d;
};

/** A step that fails transiently `failures` times per document, then succeeds. */
class FlakyStep implements IPipelineStepHandler {
  readonly stepName = 'flaky';
  readonly calls = new Map<string, number>();
  constructor(
    private readonly failures: number,
    private readonly result: 'transient' | 'fatal' = 'transient',
  ) {}
  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    const n = (this.calls.get(pipeline.document_id) ?? 0) + 1;
    this.calls.set(pipeline.document_id, n);
    if (n <= this.failures) return { result: this.result, pipeline, error: `flaky failure ${n}` };
    return { result: 'success', pipeline };
  }
}

function service(dir: string, configure: (b: KernelMemoryBuilder) => KernelMemoryBuilder = (b) => b) {
  const db = new SimpleVectorDb({ directory: join(dir, 'vectors'), durable: false });
  const builder = new KernelMemoryBuilder()
    .withDataDirectory(dir)
    .withMemoryDb(db)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withLogger(silentLogger)
    .withQueueFactory(() => new FileQueue({ directory: join(dir, 'queues'), pollIntervalMs: 20, retryDelayMs: 10, durable: false }));
  const memory = configure(builder).buildService();
  services.push(memory);
  return { memory, db };
}

const ready = (memory: MemoryService, id: string, index?: string) =>
  vi.waitFor(async () => expect(await memory.getDocumentStatus(id, index)).toMatchObject({ completed: true }), {
    timeout: 10_000,
    interval: 20,
  });

describe('MemoryService (distributed orchestrator over a FileQueue)', () => {
  it('returns from an import once the work is queued, then completes it in the background', async () => {
    const { memory } = service(await tempDir());
    await memory.start();
    const id = await memory.importText('Saturn has a ring system made of ice.', { documentId: 'saturn', tags: { topic: ['space'] } });
    expect(id).toBe('saturn');
    await ready(memory, 'saturn');
    const result = await memory.search('Saturn rings ice');
    expect(result.results[0]?.documentId).toBe('saturn');
    expect(await memory.getDocumentStatus('saturn')).toMatchObject({
      completed_steps: ['extract', 'partition', 'gen_embeddings', 'save_records'],
      remaining_steps: [],
      failed: false,
    });
  });

  it('a publishing-only process queues work that a process started later finishes', async () => {
    const dir = await tempDir();
    const api = service(dir).memory;
    await api.start({ runHandlers: false });
    for (let i = 0; i < 5; i++) await api.importText(`Document number ${i} about comets.`, { documentId: `doc-${i}` });
    expect(await api.isDocumentReady('doc-0')).toBe(false);
    await api.stop();

    const { memory: worker, db } = service(dir);
    await worker.start();
    for (let i = 0; i < 5; i++) await ready(worker, `doc-${i}`);
    const records = await allRecords(db);
    expect(records).toHaveLength(5);
    expect(new Set(records.map((r) => r.id)).size).toBe(5);
  });

  it('retries a transient failure and completes', async () => {
    const flaky = new FlakyStep(2);
    const { memory } = service(await tempDir(), (b) => b.withHandler(flaky).withOrchestratorOptions({ maxAttempts: 3 }));
    await memory.start();
    await memory.importText('Retry me.', {
      documentId: 'retry',
      steps: ['extract', 'flaky', 'partition', 'gen_embeddings', 'save_records'],
    });
    await ready(memory, 'retry');
    expect(flaky.calls.get('retry')).toBe(3);
  });

  it('fails the document with the reason after the last attempt and poisons the message', async () => {
    const dir = await tempDir();
    const flaky = new FlakyStep(100);
    const { memory } = service(dir, (b) => b.withHandler(flaky).withOrchestratorOptions({ maxAttempts: 3 }));
    await memory.start();
    await memory.importText('Never works.', { documentId: 'doomed', steps: ['extract', 'flaky'] });
    await vi.waitFor(async () => expect(await memory.getDocumentStatus('doomed')).toMatchObject({ failed: true }), { timeout: 10_000 });
    const status = await memory.getDocumentStatus('doomed');
    expect(status?.error).toMatch(/step "flaky" failed: flaky failure 3/);
    expect(status?.completed).toBe(false);
    expect(flaky.calls.get('doomed')).toBe(3);
    await vi.waitFor(async () => expect(await readdir(join(dir, 'queues', 'flaky-poison', 'ready'))).toHaveLength(1));
  });

  it('a fatal result fails the document at once', async () => {
    const flaky = new FlakyStep(100, 'fatal');
    const { memory } = service(await tempDir(), (b) => b.withHandler(flaky));
    await memory.start();
    await memory.importText('Broken.', { documentId: 'broken', steps: ['flaky'] });
    await vi.waitFor(async () => expect(await memory.getDocumentStatus('broken')).toMatchObject({ failed: true }), { timeout: 10_000 });
    expect(flaky.calls.get('broken')).toBe(1);
  });

  it('counts a worker that died mid-step as an attempt and fails the document after too many', async () => {
    const dir = await tempDir();
    const { memory } = service(dir, (b) => b.withOrchestratorOptions({ maxAttempts: 2 }));
    await memory.start({ runHandlers: false });
    await memory.importText('Crashes the worker.', { documentId: 'crashy' });
    // What two workers that died while extracting leave in the saved state.
    const pipeline = (await memory.orchestrator.statusStore.read('default', 'crashy'))!;
    pipeline.step_attempts = { step: 'extract', count: 2 };
    await memory.orchestrator.statusStore.write(pipeline);
    await memory.stop();

    const worker = service(dir, (b) => b.withOrchestratorOptions({ maxAttempts: 2 })).memory;
    await worker.start();
    await vi.waitFor(async () => expect(await worker.getDocumentStatus('crashy')).toMatchObject({ failed: true }), { timeout: 10_000 });
    expect((await worker.getDocumentStatus('crashy'))?.error).toMatch(/after 2 attempts: the worker running it stopped/);
  });

  it('deletes documents and indexes through the queue', async () => {
    const { memory, db } = service(await tempDir());
    await memory.start();
    await memory.importText('Mercury is the smallest planet.', { documentId: 'mercury', index: 'planets' });
    await memory.importText('Venus is the hottest planet.', { documentId: 'venus', index: 'planets' });
    await ready(memory, 'mercury', 'planets');
    await ready(memory, 'venus', 'planets');
    await memory.deleteDocument('mercury', 'planets');
    await vi.waitFor(async () => expect(await memory.getDocumentStatus('mercury', 'planets')).toBeNull(), { timeout: 10_000 });
    expect((await allRecords(db, 'planets')).map((r) => r.tags.__document_id)).toEqual([['venus']]);
    await memory.deleteIndex('planets');
    await vi.waitFor(async () => expect(await memory.listIndexes()).toEqual([]), { timeout: 10_000 });
  });

  it('drops the pointers of an execution replaced by a re-import', async () => {
    const dir = await tempDir();
    const api = service(dir).memory;
    await api.start({ runHandlers: false });
    await api.importText('First version.', { documentId: 'doc' });
    await api.importText('Second version about tea.', { documentId: 'doc' });
    await api.stop();
    const extracts: string[] = [];
    const worker = service(dir, (b) =>
      b.withOrchestratorOptions({ observer: { stepFinished: (e) => e.step === 'extract' && extracts.push(e.documentId) } }),
    );
    await worker.memory.start();
    await ready(worker.memory, 'doc');
    const records = await allRecords(worker.db);
    expect(records).toHaveLength(1);
    expect(records[0]?.payload.text).toMatch(/Second version/);
    await new Promise((r) => setTimeout(r, 200));
    expect(extracts).toEqual(['doc']); // the first execution's pointer was dropped, not run
  });

  it('tells an observer how long each step took', async () => {
    const events: StepFinishedEvent[] = [];
    const { memory } = service(await tempDir(), (b) => b.withOrchestratorOptions({ observer: { stepFinished: (e) => events.push(e) } }));
    await memory.start();
    await memory.importText('Observed.', { documentId: 'observed' });
    await ready(memory, 'observed');
    expect(events.map((e) => e.step)).toEqual(['extract', 'partition', 'gen_embeddings', 'save_records']);
    for (const e of events) {
      expect(e.result).toBe('success');
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('stop() lets the step in progress finish', async () => {
    let release: () => void = () => undefined;
    let finished = false;
    const slow: IPipelineStepHandler = {
      stepName: 'slow',
      invoke: async (pipeline) => {
        await new Promise<void>((r) => (release = r));
        finished = true;
        return { result: 'success', pipeline };
      },
    };
    const { memory } = service(await tempDir(), (b) => b.withHandler(slow));
    await memory.start();
    await memory.importText('Slow.', { documentId: 'slow', steps: ['slow'] });
    await vi.waitFor(() => expect(memory.orchestrator.activeSteps).toBe(1));
    const stopping = memory.stop({ drainTimeoutMs: 5000 });
    setTimeout(() => release(), 100);
    await stopping;
    expect(finished).toBe(true);
    expect(await memory.isDocumentReady('slow')).toBe(true);
  });
});
