import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_STEP_ATTEMPTS,
  DiskContentStorage,
  FileQueue,
  KmError,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  SimpleVectorDb,
  silentLogger,
  type DataPipeline,
  type IPipelineStepHandler,
  type MemoryService,
  type StepFinishedEvent,
  type StepOutcome,
  stepQueueMaxAttempts,
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

/** A disk storage whose reads and writes fail (transiently) while `down`: a database outage under the pipeline state. */
class OutageStorage extends DiskContentStorage {
  down = false;
  failures = 0;
  private check(): void {
    if (this.down) {
      this.failures++;
      throw new KmError('transient', 'storage unavailable', { transient: true });
    }
  }
  override async readFile(index: string, documentId: string, fileName: string): Promise<Buffer> {
    this.check();
    return super.readFile(index, documentId, fileName);
  }
  override async writeFile(...args: Parameters<DiskContentStorage['writeFile']>): Promise<number> {
    this.check();
    return super.writeFile(...args);
  }
}

/** A step whose backend is down (transient failures) while `down` is true. */
class OutageStep implements IPipelineStepHandler {
  readonly stepName = 'outage';
  down = true;
  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    return this.down ? { result: 'transient', pipeline, error: 'backend unavailable' } : { result: 'success', pipeline };
  }
}

/** Fails `failures` times asking for `retryAfterMs`, then succeeds; records the gaps between its calls. */
class ThrottledStep implements IPipelineStepHandler {
  readonly stepName = 'throttled';
  readonly gapsMs: number[] = [];
  private calls = 0;
  private last = 0;
  constructor(
    private readonly failures: number,
    private readonly retryAfterMs: number,
  ) {}
  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    const now = performance.now();
    if (this.calls++ > 0) this.gapsMs.push(now - this.last);
    this.last = now;
    if (this.calls <= this.failures) return { result: 'transient', pipeline, error: 'throttled', retryAfterMs: this.retryAfterMs };
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
    // The cap for these short retry delays (10 ms doubling to 60 s), as a factory with its own delays derives it.
    .withQueueFactory(
      (_step, { retryBudgetMs }) =>
        new FileQueue({
          directory: join(dir, 'queues'),
          pollIntervalMs: 20,
          retryDelayMs: 10,
          durable: false,
          maxAttempts: stepQueueMaxAttempts(DEFAULT_STEP_ATTEMPTS, retryBudgetMs, { initialDelayMs: 10, maxDelayMs: 60_000 }),
        }),
    );
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

  it('retries transient failures until the retry budget is spent, then fails the document with the step, time, attempts and last error, and poisons the message', async () => {
    const dir = await tempDir();
    const flaky = new FlakyStep(1000);
    // maxAttempts no longer caps answered failures: only the budget does.
    const { memory } = service(dir, (b) => b.withHandler(flaky).withOrchestratorOptions({ maxAttempts: 2, retryBudgetMs: 400 }));
    await memory.start();
    await memory.importText('Never works.', { documentId: 'doomed', steps: ['extract', 'flaky'] });
    await vi.waitFor(async () => expect(await memory.getDocumentStatus('doomed')).toMatchObject({ failed: true }), { timeout: 10_000 });
    const status = await memory.getDocumentStatus('doomed');
    const calls = flaky.calls.get('doomed')!;
    expect(calls).toBeGreaterThan(2);
    const [, attempts, last] =
      /^step "flaky" kept failing for [0-9a-z ]+ \(retry budget 400 ms, (\d+) attempts\): flaky failure (\d+)$/.exec(status?.error ?? '')!;
    expect([Number(attempts), Number(last)]).toEqual([calls, calls]);
    expect(status?.completed).toBe(false);
    await vi.waitFor(async () => expect(await readdir(join(dir, 'queues', 'flaky-poison', 'ready'))).toHaveLength(1));
  });

  it('a queue whose own delivery cap comes before the budget still leaves the document failed, with the reason', async () => {
    const dir = await tempDir();
    const flaky = new FlakyStep(1000);
    const { memory } = service(dir, (b) =>
      b
        .withHandler(flaky)
        // A factory that ignores the cap it is told: its queue poisons after 3 deliveries.
        .withQueueFactory(
          () => new FileQueue({ directory: join(dir, 'queues'), pollIntervalMs: 20, retryDelayMs: 10, durable: false, maxAttempts: 3 }),
        ),
    );
    await memory.start();
    await memory.importText('Never works.', { documentId: 'capped', steps: ['extract', 'flaky'] });
    await vi.waitFor(async () => expect(await memory.getDocumentStatus('capped')).toMatchObject({ failed: true }), { timeout: 10_000 });
    expect((await memory.getDocumentStatus('capped'))?.error).toBe(
      `step "flaky" failed on the queue's last delivery (3 of 3): flaky failure 3`,
    );
  });

  it('redrive runs failed documents again from their last completed step, once; stalled ones only when asked', async () => {
    const dir = await tempDir();
    const outage = new OutageStep();
    const { memory } = service(dir, (b) => b.withHandler(outage).withOrchestratorOptions({ retryBudgetMs: 100 }));
    await memory.start();
    for (const id of ['a', 'b']) await memory.importText(`Document ${id}.`, { documentId: id, steps: ['extract', 'outage', 'partition'] });
    await memory.importText('Elsewhere.', { documentId: 'c', index: 'other', steps: ['extract', 'outage', 'partition'] });
    for (const [id, index] of [['a'], ['b'], ['c', 'other']] as const) {
      await vi.waitFor(async () => expect(await memory.getDocumentStatus(id, index)).toMatchObject({ failed: true }), { timeout: 10_000 });
    }
    outage.down = false;
    // One index only: the other's failed document stays failed.
    const first = await memory.redrive({ index: 'default' });
    expect(first.redriven.map((d) => [d.documentId, d.step, d.was]).sort()).toEqual([
      ['a', 'outage', 'failed'],
      ['b', 'outage', 'failed'],
    ]);
    expect(first.redriven[0]!.error).toMatch(/^step "outage" kept failing for/);
    for (const id of ['a', 'b']) await ready(memory, id);
    expect(await memory.getDocumentStatus('c', 'other')).toMatchObject({ failed: true });
    // Again: nothing left to do.
    expect((await memory.redrive({ index: 'default' })).redriven).toEqual([]);
    expect((await memory.redrive({ index: 'other', documentId: 'c' })).redriven.map((d) => d.documentId)).toEqual(['c']);
    await ready(memory, 'c', 'other');

    // A document with steps left and no message anywhere (poisoned while its state was unreachable).
    const pipeline = (await memory.orchestrator.statusStore.read('default', 'a'))!;
    const stalled = { ...pipeline, document_id: 'stalled', remaining_steps: ['partition'], completed_steps: ['extract', 'outage'] };
    await memory.orchestrator.context.contentStorage.createDocumentDirectory('default', 'stalled');
    await memory.orchestrator.statusStore.write(stalled);
    expect((await memory.redrive({ index: 'default' })).redriven).toEqual([]);
    const found = await memory.redrive({ index: 'default', stalled: true, stalledAfterMs: 0 });
    expect(found.redriven.map((d) => [d.documentId, d.was])).toEqual([['stalled', 'stalled']]);
    await ready(memory, 'stalled');
    await expect(memory.redrive({ documentId: 'a' })).resolves.toMatchObject({ redriven: [] });
  });

  it('counts the time the pipeline state could not be read in the retry budget: a document whose state came back after it fails, with the reason', async () => {
    const dir = await tempDir();
    const storage = new OutageStorage({ directory: join(dir, 'files') });
    const { memory } = service(dir, (b) => b.withContentStorage(storage).withOrchestratorOptions({ retryBudgetMs: 300 }));
    await memory.start({ runHandlers: false });
    await memory.importText('Written before the outage.', { documentId: 'late' });
    await memory.importText('Also before.', { documentId: 'soon' });
    await memory.stop();
    storage.down = true;
    const worker = service(dir, (b) => b.withContentStorage(storage).withOrchestratorOptions({ retryBudgetMs: 300 })).memory;
    await worker.start();
    await vi.waitFor(() => expect(storage.failures).toBeGreaterThan(4), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 350)); // the outage outlasts the budget
    storage.down = false;
    for (const id of ['late', 'soon']) {
      await vi.waitFor(async () => expect(await worker.getDocumentStatus(id)).toMatchObject({ failed: true }), { timeout: 10_000 });
      expect((await worker.getDocumentStatus(id))?.error).toMatch(
        /^step "extract" kept failing for .* \(retry budget 300 ms, 0 attempts\): the pipeline state could not be read or written$/,
      );
    }
    expect((await worker.redrive()).redriven.map((d) => d.documentId).sort()).toEqual(['late', 'soon']);
    await ready(worker, 'late');
    await ready(worker, 'soon');
  });

  it('a queue that reaches its cap while the state is unreachable gets the step again, so the document ends failed, not stuck', async () => {
    const dir = await tempDir();
    const storage = new OutageStorage({ directory: join(dir, 'files') });
    // Queues that poison after 3 deliveries whatever they are told.
    const capped = (b: KernelMemoryBuilder) =>
      b
        .withContentStorage(storage)
        .withOrchestratorOptions({ retryBudgetMs: 200 })
        .withQueueFactory(
          () => new FileQueue({ directory: join(dir, 'queues'), pollIntervalMs: 20, retryDelayMs: 10, durable: false, maxAttempts: 3 }),
        );
    const { memory } = service(dir, capped);
    await memory.start({ runHandlers: false });
    await memory.importText('Written before the outage.', { documentId: 'kept' });
    await memory.stop();
    storage.down = true;
    const worker = service(dir, capped).memory;
    await worker.start();
    // Many more failed reads than the cap: the message came back each time the cap was reached.
    await vi.waitFor(() => expect(storage.failures).toBeGreaterThan(12), { timeout: 10_000 });
    storage.down = false;
    await vi.waitFor(async () => expect(await worker.getDocumentStatus('kept')).toMatchObject({ failed: true }), { timeout: 10_000 });
    expect((await worker.getDocumentStatus('kept'))?.error).toMatch(
      /^step "extract" kept failing for .*: the pipeline state could not be read or written$/,
    );
  });

  it('a document whose state comes back within the budget completes', async () => {
    const dir = await tempDir();
    const storage = new OutageStorage({ directory: join(dir, 'files') });
    const { memory } = service(dir, (b) => b.withContentStorage(storage).withOrchestratorOptions({ retryBudgetMs: 60_000 }));
    await memory.start({ runHandlers: false });
    await memory.importText('Written before the outage.', { documentId: 'brief' });
    await memory.stop();
    storage.down = true;
    const worker = service(dir, (b) => b.withContentStorage(storage).withOrchestratorOptions({ retryBudgetMs: 60_000 })).memory;
    await worker.start();
    await vi.waitFor(() => expect(storage.failures).toBeGreaterThan(4), { timeout: 10_000 });
    storage.down = false;
    await ready(worker, 'brief');
  });

  it("honours a backend's retryAfterMs between attempts", async () => {
    const dir = await tempDir();
    const throttled = new ThrottledStep(2, 300);
    const { memory } = service(dir, (b) => b.withHandler(throttled));
    await memory.start();
    await memory.importText('Slow down.', { documentId: 'throttled', steps: ['extract', 'throttled'] });
    await ready(memory, 'throttled');
    // The queue's own delay is 10 ms; the step asked for 300 ms between its attempts.
    expect(throttled.gapsMs.every((gap) => gap >= 250)).toBe(true);
    expect(throttled.gapsMs).toHaveLength(2);
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
    expect((await worker.getDocumentStatus('crashy'))?.error).toMatch(
      /was started 2 times and the worker running it stopped 2 times before finishing/,
    );
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
