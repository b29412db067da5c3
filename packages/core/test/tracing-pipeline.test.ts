import { describe, expect, it, vi } from 'vitest';
import { SpanStatusCode } from '@opentelemetry/api';
import {
  type DataPipeline,
  DEFAULT_STEPS,
  InMemoryQueue,
  InMemoryQueueBroker,
  type IPipelineStepHandler,
  type MemoryService,
  type StepOutcome,
} from '../src/index.js';
import { cleanupAfterTests, inMemoryBuilder, waitUntilCompleted } from './helpers.js';
import { isDescendant, onlySpan, parentOf, spansNamed, useTracing } from './tracing-helpers.js';

const exporter = useTracing();
const { services } = cleanupAfterTests();

function queuedMemory(): MemoryService {
  const broker = new InMemoryQueueBroker();
  const memory = inMemoryBuilder()
    .withQueueFactory((_step, { maxAttempts }) => new InMemoryQueue({ broker, maxAttempts, retryDelayMs: 10 }))
    .buildService();
  services.push(memory);
  return memory;
}

/** Waits until the spans of every default step of `documentId`, and the queue spans around them, have ended. */
async function stepSpansOf(documentId: string) {
  return vi.waitFor(
    () => {
      const spans = exporter.getFinishedSpans();
      const steps = spansNamed(spans, 'km.pipeline.step ').filter((s) => s.attributes['km.document_id'] === documentId);
      expect(steps.map((s) => s.attributes['km.step']).sort()).toEqual([...DEFAULT_STEPS].sort());
      const processed = spansNamed(spans, 'km.queue.process ').filter((p) => steps.some((s) => parentOf(spans, s) === p));
      expect(processed).toHaveLength(DEFAULT_STEPS.length);
      return { spans, steps };
    },
    { timeout: 10_000, interval: 20 },
  );
}

describe('tracing an import across the queues', () => {
  it('puts the import, every step and the records it saves in one trace', async () => {
    const memory = queuedMemory();
    await memory.start();
    const id = await memory.importText('Pluto is a dwarf planet in the Kuiper belt.', { documentId: 'pluto', index: 'planets' });
    await waitUntilCompleted({ getDocumentStatus: (d) => memory.getDocumentStatus(d, 'planets') }, id, 20);
    const { spans, steps } = await stepSpansOf('pluto');

    const imported = onlySpan(spans, 'km.pipeline.import');
    const traceId = imported.spanContext().traceId;
    expect(imported.attributes).toMatchObject({ 'km.index': 'planets', 'km.document_id': 'pluto' });
    for (const step of steps) {
      expect(step.spanContext().traceId).toBe(traceId);
      expect(step.name).toBe(`km.pipeline.step ${step.attributes['km.step']}`);
      expect(step.attributes).toMatchObject({
        'km.index': 'planets',
        'km.document_id': 'pluto',
        'km.attempt': 1,
        'km.step.result': 'success',
      });
      // Each step runs in the consumer span of its queue message, whose parent is the publish span of the producer.
      const consumer = parentOf(spans, step)!;
      expect(consumer.name).toBe(`km.queue.process ${step.attributes['km.step']}`);
      expect(parentOf(spans, consumer)?.name).toBe(`km.queue.publish ${step.attributes['km.step']}`);
    }
    // The first message was published by the import itself.
    const first = steps.find((s) => s.attributes['km.step'] === 'extract')!;
    expect(isDescendant(spans, first, imported)).toBe(true);

    const save = steps.find((s) => s.attributes['km.step'] === 'save_records')!;
    const upserts = spans.filter((s) => s.name.startsWith('km.memory_db.upsert') && isDescendant(spans, s, save));
    expect(upserts.length).toBeGreaterThan(0);
    expect(upserts[0]!.attributes).toMatchObject({ 'km.index': 'planets', 'km.memory_db': expect.any(String) });
    expect(upserts[0]!.spanContext().traceId).toBe(traceId);

    const embedding = spans.find(
      (s) => s.name === 'km.embeddings' && isDescendant(spans, s, steps.find((x) => x.attributes['km.step'] === 'gen_embeddings')!),
    );
    expect(embedding?.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'km.embeddings.purpose': 'document' });
    expect(embedding?.attributes['km.tokens.input']).toBeGreaterThan(0);
  });

  it('gives each import its own trace, though one consumer loop handles both', async () => {
    const memory = queuedMemory();
    await memory.start();
    await memory.importText('Ceres is the largest object in the asteroid belt.', { documentId: 'ceres' });
    await memory.importText('Eris is a dwarf planet beyond Neptune.', { documentId: 'eris' });
    await waitUntilCompleted(memory, 'ceres', 20);
    await waitUntilCompleted(memory, 'eris', 20);
    const ceres = await stepSpansOf('ceres');
    const eris = await stepSpansOf('eris');
    const imports = spansNamed(eris.spans, 'km.pipeline.import');
    const traceOf = (doc: string) => imports.find((s) => s.attributes['km.document_id'] === doc)!.spanContext().traceId;
    expect(traceOf('ceres')).not.toBe(traceOf('eris'));
    for (const step of ceres.steps) expect(step.spanContext().traceId).toBe(traceOf('ceres'));
    for (const step of eris.steps) expect(step.spanContext().traceId).toBe(traceOf('eris'));
  });

  it('traces the steps of an in-process import as children of the import span', async () => {
    const memory = inMemoryBuilder().build();
    await memory.importText('Haumea spins fast.', { documentId: 'haumea' });
    const spans = exporter.getFinishedSpans();
    const imported = onlySpan(spans, 'km.pipeline.import');
    const steps = spansNamed(spans, 'km.pipeline.step ');
    expect(steps.map((s) => s.attributes['km.step'])).toEqual([...DEFAULT_STEPS]);
    for (const step of steps) expect(parentOf(spans, step)).toBe(imported);
  });

  it('gives each attempt of a retried step its own span, the failed one with an error status', async () => {
    let calls = 0;
    const flaky: IPipelineStepHandler = {
      stepName: 'flaky',
      async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
        calls++;
        return calls === 1 ? { result: 'transient', pipeline, error: 'not yet' } : { result: 'success', pipeline };
      },
    };
    const memory = inMemoryBuilder().withHandler(flaky).withOrchestratorOptions({ retryDelayMs: 1 }).build();
    await memory.importText('Makemake has no known rings.', { documentId: 'makemake', steps: ['extract', 'flaky'] });
    const attempts = spansNamed(exporter.getFinishedSpans(), 'km.pipeline.step flaky');
    expect(attempts.map((s) => s.attributes['km.attempt'])).toEqual([1, 2]);
    expect(attempts[0]!.attributes['km.step.result']).toBe('transient');
    expect(attempts[0]!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'not yet' });
    expect(attempts[1]!.attributes['km.step.result']).toBe('success');
    expect(attempts[1]!.status.code).not.toBe(SpanStatusCode.ERROR);
  });
});
