import { describe, expect, it } from 'vitest';
import { Document, isKmError, type IContentDecoder } from '../src/index.js';
import { inMemoryBuilder } from './helpers.js';

/** A decoder that refuses its files while `broken`, as one does with a file it cannot read yet. */
class FlakyDecoder implements IContentDecoder {
  readonly name = 'flaky';
  broken = true;
  supportsMimeType(mimeType: string): boolean {
    return mimeType === 'application/x-flaky';
  }
  async decode(data: Buffer) {
    if (this.broken) throw new Error('the file is corrupt');
    return { mimeType: 'text/plain', sections: [{ number: 1, text: data.toString('utf8') }] };
  }
}

function setup() {
  const decoder = new FlakyDecoder();
  const builder = inMemoryBuilder().withDecoder(decoder);
  return { decoder, memory: builder.build(), service: builder.buildService() };
}

const GOOD = 'Otters hold hands while they sleep.';
const BAD = 'Beavers build dams from branches and mud.';
const mixed = (id: string) => new Document(id).addBuffer('good.txt', GOOD).addBuffer('bad.flaky', BAD, 'application/x-flaky');
const goodOnly = (id: string) => new Document(id).addBuffer('good.txt', GOOD);
const WAIT = { timeoutMs: 15_000, pollIntervalMs: 20 };

describe('a document with a failed file becomes ready once re-imported successfully', () => {
  it('in process: without the bad file, and with the same files once they can be read', async () => {
    const { memory, decoder } = setup();
    await expect(memory.importDocument(mixed('doc'))).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
    expect(await memory.isDocumentReady('doc')).toBe(false);

    await memory.importDocument(goodOnly('doc'));
    expect(await memory.isDocumentReady('doc')).toBe(true);
    const status = await memory.waitForDocument('doc', WAIT);
    expect(status).toMatchObject({ completed: true, failed: false });
    expect(status.failed_files ?? []).toEqual([]);

    await expect(memory.importDocument(mixed('same'))).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
    decoder.broken = false;
    await memory.importDocument(mixed('same'));
    expect(await memory.isDocumentReady('same')).toBe(true);
    expect(await memory.waitForDocument('same', WAIT)).toMatchObject({ completed: true, failed: false });
    expect((await memory.search('beavers build dams', { limit: 1 })).results.map((c) => c.documentId)).toEqual(['same']);
  });

  it('through the queues (MemoryService): waitForDocument resolves after the re-import', async () => {
    const { service, decoder } = setup();
    await service.start();
    try {
      await service.importDocument(mixed('queued'));
      await expect(service.waitForDocument('queued', WAIT)).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
      expect(await service.isDocumentReady('queued')).toBe(false);

      await service.importDocument(goodOnly('queued'));
      const status = await service.waitForDocument('queued', WAIT);
      expect(status).toMatchObject({ completed: true, failed: false });
      expect(status.failed_files ?? []).toEqual([]);
      expect(await service.isDocumentReady('queued')).toBe(true);

      await service.importDocument(mixed('fixed'));
      await expect(service.waitForDocument('fixed', WAIT)).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
      decoder.broken = false;
      await service.importDocument(mixed('fixed'));
      expect(await service.waitForDocument('fixed', WAIT)).toMatchObject({ completed: true, failed: false });
      expect(await service.isDocumentReady('fixed')).toBe(true);
    } finally {
      await service.stop();
    }
  });
});
