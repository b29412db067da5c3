import { describe, expect, it } from 'vitest';
import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  KmError,
  MemoryContentStorage,
  PIPELINE_STATUS_FILE,
  silentLogger,
  SimpleVectorDb,
} from '../src/index.js';

/** Memory storage whose reads of the pipeline state fail (an unreachable shared storage) while `failing` is set. */
class FlakyStateStorage extends MemoryContentStorage {
  failing = false;
  override async readFileVersion(index: string, documentId: string, fileName: string) {
    if (this.failing && fileName === PIPELINE_STATUS_FILE) throw new KmError('transient', 'storage unreachable', { transient: true });
    return super.readFileVersion(index, documentId, fileName);
  }
}

describe('an import whose existing state cannot be read right now', () => {
  it('fails with the storage error and keeps the existing document (it is not taken for a new one)', async () => {
    const storage = new FlakyStateStorage();
    const memory = new KernelMemoryBuilder()
      .withContentStorage(storage)
      .withMemoryDb(new SimpleVectorDb())
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withLogger(silentLogger)
      .build();
    await memory.importText('The first version of the note.', { documentId: 'note' });
    const before = (await storage.listFiles('default', 'note')).map((f) => f.name);
    expect(before.length).toBeGreaterThan(1);
    storage.failing = true;
    await expect(memory.importText('A second version.', { documentId: 'note' })).rejects.toSatisfy(
      (e: unknown) => e instanceof KmError && e.code === 'transient',
    );
    storage.failing = false;
    expect((await storage.listFiles('default', 'note')).map((f) => f.name)).toEqual(before);
    expect(await memory.isDocumentReady('note')).toBe(true);
  });
});
