import { describe, expect, it } from 'vitest';
import { MemoryContentStorage, SimpleVectorDb, isKmError } from '../src/index.js';
import { inMemoryBuilder } from './helpers.js';

/** SimpleVectorDb with a declared limit, as a connector declares its own. */
class LimitedDb extends SimpleVectorDb {
  override readonly maxIndexNameLength = 20;
}

describe('an index name too long for a configured memory DB is refused at import, before anything is written', () => {
  const setup = () => {
    const storage = new MemoryContentStorage();
    // The SimpleVectorDb of inMemoryBuilder first, then the limited one.
    const builder = inMemoryBuilder({ contentStorage: storage }).withMemoryDb(new LimitedDb());
    return { storage, memory: builder.build(), service: builder.buildService() };
  };

  it('in process and through the queues: invalid_index_name, nothing stored', async () => {
    const { storage, memory, service } = setup();
    const long = 'a'.repeat(21);
    await expect(memory.importText('text', { index: long })).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'invalid_index_name') && /at most 20 bytes/.test((e as Error).message),
    );
    await expect(service.importText('text', { index: long })).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    await expect(memory.importWebPage('http://example.invalid/', { index: long })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_index_name'),
    );
    expect(await storage.listIndexes()).toEqual([]);
    // Counted on the normalised name: 20 characters pass.
    await memory.importText('Short enough.', { index: ` ${'B'.repeat(20)} `, documentId: 'ok' });
    expect(await storage.listIndexes()).toEqual(['b'.repeat(20)]);
  });
});
