import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  HashingEmbeddingGenerator,
  KmError,
  PIPELINE_STATUS_FILE,
  isKmError,
  type DataPipeline,
  type ExtractedContent,
  type IContentDecoder,
  type IPipelineStepHandler,
  type KernelMemoryBuilder,
  type StepOutcome,
} from '../src/index.js';
import { allRecords, inMemory } from './helpers.js';

/** An in-memory memory whose failed steps are retried after 1 ms. */
function build(configure: (b: KernelMemoryBuilder) => KernelMemoryBuilder = (b) => b) {
  return inMemory((b) => configure(b.withOrchestratorOptions({ retryDelayMs: 1 })));
}

/** A step handler that counts its calls; `outcome` gives the result of call `n` (from 1). */
function countingStep(
  stepName: string,
  outcome: (n: number, pipeline: DataPipeline) => StepOutcome,
): IPipelineStepHandler & { calls: number } {
  const step = {
    stepName,
    calls: 0,
    async invoke(pipeline: DataPipeline) {
      return outcome(++step.calls, pipeline);
    },
  };
  return step;
}

/** Counts what reaches the generator, and how many calls overlap. */
class ObservedEmbeddingGenerator extends HashingEmbeddingGenerator {
  override readonly maxBatchSize = 3;
  batches: number[] = [];
  inFlight = 0;
  maxInFlight = 0;
  override async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    this.batches.push(texts.length);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, 5));
    this.inFlight--;
    return super.generateEmbeddings(texts, signal);
  }
}

describe('pipeline', () => {
  it('retries a step that fails transiently, then completes', async () => {
    const flaky = countingStep('flaky', (n, pipeline) => {
      if (n < 3) throw new KmError('transient', 'backend busy', { transient: true });
      return { result: 'success', pipeline };
    });
    const { memory } = build((b) => b.withHandler(flaky));
    await memory.importText('hello', { documentId: 'd', steps: ['flaky'] });
    expect(flaky.calls).toBe(3);
    expect(await memory.getDocumentStatus('d')).toMatchObject({ completed: true, completed_steps: ['flaky'] });
  });

  it('a step still transient after the configured attempts fails the document with the reason', async () => {
    const busy = countingStep('busy', (_n, pipeline) => ({ result: 'transient', pipeline, error: 'rate limited' }));
    const { memory } = build((b) => b.withHandler(busy).withOrchestratorOptions({ maxAttempts: 4, retryDelayMs: 1 }));
    await expect(memory.importText('hello', { documentId: 'd', steps: ['busy'] })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'pipeline_failed'),
    );
    expect(busy.calls).toBe(4);
    expect((await memory.getDocumentStatus('d'))!.error).toContain('rate limited');
  });

  it('embeds in batches of the generator size with bounded concurrency', async () => {
    const generator = new ObservedEmbeddingGenerator();
    const { memory, db } = build((b) => b.withEmbeddingGenerator(generator).withEmbeddingOptions({ concurrency: 2 }));
    const text = Array.from({ length: 20 }, (_, i) => `Paragraph ${i} is about subject ${i}.`).join('\n\n');
    await memory.importText(text, { documentId: 'd', args: { maxTokensPerChunk: 12, overlapTokens: 0 } });
    const records = await allRecords(db);
    expect(records.length).toBe(20);
    expect(Math.max(...generator.batches)).toBe(3);
    expect(generator.batches.reduce((a, b) => a + b, 0)).toBe(20);
    expect(generator.maxInFlight).toBe(2);
  });

  it('delete_generated_files keeps the upload, the status and the records', async () => {
    const { memory, db, storage } = build();
    await memory.importText('Some text worth keeping.', {
      documentId: 'd',
      steps: ['extract', 'partition', 'gen_embeddings', 'save_records', 'delete_generated_files'],
    });
    expect((await storage.listFiles('default', 'd')).map((f) => f.name)).toEqual([PIPELINE_STATUS_FILE, 'content.txt']);
    expect(await allRecords(db)).toHaveLength(1);
  });

  it('private_delete_document and private_delete_index are refused as import steps; deletions do their work', async () => {
    const { memory, db, storage } = build();
    await memory.importText('Text one.', { documentId: 'one', index: 'ix' });
    await memory.importText('Text two.', { documentId: 'two', index: 'ix' });
    for (const step of ['private_delete_document', 'private_delete_index']) {
      await expect(memory.importText('ignored', { documentId: 'one', index: 'ix', steps: [step] })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
    expect(await storage.listDocuments('ix')).toEqual(['one', 'two']);
    await memory.deleteDocument('one', 'ix');
    expect((await allRecords(db, 'ix')).map((r) => r.tags.__document_id![0])).toEqual(['two']);
    expect(await storage.listDocuments('ix')).toEqual(['two']);
    expect(await memory.getDocumentStatus('one', 'ix')).toBeNull();
    await memory.deleteIndex('ix');
    expect(await db.getIndexes()).not.toContain('ix');
    expect(await storage.listDocuments('ix')).toEqual([]);
  });

  it('imports a stream', async () => {
    const { memory, db } = build();
    await memory.importDocument(
      { name: 'streamed.txt', stream: Readable.from([Buffer.from('Streams '), Buffer.from('arrive in pieces.')]) },
      { documentId: 's' },
    );
    expect((await allRecords(db))[0]!.payload.text).toBe('Streams arrive in pieces.');
  });

  it('section numbers from a decoder (pages) reach citations', async () => {
    const paged: IContentDecoder = {
      name: 'paged',
      supportsMimeType: (m) => m === 'application/x-paged',
      async decode(data): Promise<ExtractedContent> {
        const pages = data.toString().split('\f');
        return { mimeType: 'text/plain', sections: pages.map((text, i) => ({ number: i + 1, text })) };
      },
    };
    const { memory } = build((b) => b.withDecoder(paged));
    await memory.importDocument(
      {
        name: 'book.paged',
        data: 'Page one talks about apples.\fPage two talks about submarines.\fPage three talks about violins.',
        mimeType: 'application/x-paged',
      },
      { documentId: 'book' },
    );
    const result = await memory.search('submarines');
    const best = result.results[0]!.partitions[0]!;
    expect(best.text).toContain('submarines');
    expect(best.sectionNumber).toBe(2);
    const sections = result.results[0]!.partitions.map((p) => p.sectionNumber).sort();
    expect(sections).toEqual([1, 2, 3]);
  });
});
