import { describe, expect, it } from 'vitest';
import { inMemoryBuilder } from './helpers.js';

describe('steps that only deletions run cannot be requested by an import', () => {
  for (const step of ['private_delete_index', 'private_delete_document', 'private_anything']) {
    it(`refuses ${step} in process and through the queues, before anything runs`, async () => {
      const memory = inMemoryBuilder().build();
      await memory.importText('Keep me.', { documentId: 'kept' });
      const attempt = memory.importText('Emperor penguins.', { documentId: 'doc', steps: ['extract', step] });
      await expect(attempt).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringContaining(step) });
      expect(await memory.getDocumentStatus('doc')).toBeNull();
      expect(await memory.getDocumentStatus('kept')).toMatchObject({ completed: true });

      const service = inMemoryBuilder().buildService();
      await service.start();
      try {
        await expect(service.importText('Emperor penguins.', { documentId: 'queued', steps: [step] })).rejects.toMatchObject({
          code: 'invalid_argument',
        });
        expect(await service.getDocumentStatus('queued')).toBeNull();
      } finally {
        await service.stop();
      }
    });
  }
});
