import { describe, expect, it } from 'vitest';
import { Document, isKmError, isStatusReady, statusFailure, type DataPipelineStatus, type IContentDecoder } from '../src/index.js';
import { inMemoryBuilder } from './helpers.js';

/** A decoder that refuses every file of its type, as a decoder does with a corrupt file. */
const refusing: IContentDecoder = {
  name: 'refusing',
  supportsMimeType: (m) => m === 'application/x-refused',
  decode: () => Promise.reject(new Error('the file is corrupt')),
};

function setup() {
  const builder = inMemoryBuilder().withDecoder(refusing);
  return { memory: builder.build(), service: builder.buildService() };
}

const mixed = (id: string) =>
  new Document(id).addBuffer('good.txt', 'Otters hold hands while they sleep.').addBuffer('bad.bin', 'x', 'application/x-refused');

describe('a document whose files partly failed is not ready', () => {
  it('in process: the import rejects with pipeline_failed naming the file; the status is failed, not completed; isDocumentReady is false', async () => {
    const { memory } = setup();
    const error = await memory.importDocument(mixed('partly')).catch((e: unknown) => e);
    expect(isKmError(error, 'pipeline_failed')).toBe(true);
    expect((error as Error).message).toMatch(/bad\.bin: the file is corrupt/);
    const status = await memory.getDocumentStatus('partly');
    expect(status).toMatchObject({ completed: false, failed: true, empty: false, remaining_steps: [] });
    expect(status?.error).toMatch(/1 of 2 file\(s\) could not be processed: bad\.bin: the file is corrupt/);
    expect(status?.failed_files).toEqual([{ name: 'bad.bin', error: 'the file is corrupt' }]);
    expect(await memory.isDocumentReady('partly')).toBe(false);
    await expect(memory.waitForDocument('partly')).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'pipeline_failed') && /bad\.bin/.test((e as Error).message),
    );
    // The good file is still searchable.
    expect((await memory.search('otters sleep')).results.map((c) => c.sourceName)).toEqual(['good.txt']);
  });

  it('through the queues (MemoryService): waitForDocument rejects with pipeline_failed naming the file', async () => {
    const { service } = setup();
    await service.start();
    try {
      await service.importDocument(mixed('queued'));
      const error = await service.waitForDocument('queued', { timeoutMs: 15_000, pollIntervalMs: 20 }).catch((e: unknown) => e);
      expect(isKmError(error, 'pipeline_failed')).toBe(true);
      expect((error as Error).message).toMatch(/bad\.bin: the file is corrupt/);
      expect(await service.isDocumentReady('queued')).toBe(false);
      expect(await service.getDocumentStatus('queued')).toMatchObject({ completed: false, failed: true });
    } finally {
      await service.stop();
    }
  });

  it('a document whose files all succeeded is ready, and waitForDocument returns its status', async () => {
    const { memory } = setup();
    await memory.importText('Walruses use their tusks to climb onto ice.', { documentId: 'fine' });
    expect(await memory.isDocumentReady('fine')).toBe(true);
    expect(await memory.waitForDocument('fine')).toMatchObject({ completed: true, failed: false });
  });

  it('statusFailure reads statuses of services that report completed with failed_files (older km)', () => {
    const old: DataPipelineStatus = {
      completed: true,
      failed: false,
      empty: false,
      index: 'default',
      document_id: 'd',
      tags: {},
      creation: '',
      last_update: '',
      steps: ['extract'],
      remaining_steps: [],
      completed_steps: ['extract'],
      failed_files: [{ name: 'a.pdf', error: 'no decoder' }],
    };
    expect(statusFailure(old)).toMatch(/a\.pdf: no decoder/);
    expect(isStatusReady(old)).toBe(false);
    expect(isStatusReady({ ...old, failed_files: [] })).toBe(true);
    expect(statusFailure({ ...old, failed: true, completed: false, error: 'step "extract" failed' })).toMatch(/extract.*a\.pdf/);
  });
});
