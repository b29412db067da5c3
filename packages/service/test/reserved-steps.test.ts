import { describe, expect, it } from 'vitest';
import { expectProblem, importTexts, uploadForm, useTestService } from './helpers.js';

describe('POST /upload with a step reserved for deletions', () => {
  const service = useTestService();

  for (const step of ['private_delete_index', 'private_delete_document']) {
    it(`refuses steps=${step} with a 400 naming the step, and runs nothing`, async () => {
      await importTexts(service().url, 'kept', { keep: 'Emperor penguins breed in winter.' });
      const res = await fetch(`${service().url}/upload`, {
        method: 'POST',
        body: uploadForm({ index: 'kept', documentId: 'attack', steps: step }, [{ name: 'a.txt', content: 'x', type: 'text/plain' }]),
      });
      const body = await expectProblem(res, 400, new RegExp(step));
      expect(body.code).toBe('invalid_argument');
      const status = await fetch(`${service().url}/upload-status?index=kept&documentId=attack`);
      expect(status.status).toBe(404);
      const kept = await fetch(`${service().url}/upload-status?index=kept&documentId=keep`);
      expect(await kept.json()).toMatchObject({ completed: true });
      const found = await fetch(`${service().url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ index: 'kept', query: 'emperor penguins' }),
      });
      expect(((await found.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    });
  }
});
