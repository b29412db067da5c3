import { describe, expect, it } from 'vitest';
import { type TestService, uploadForm, useTestService } from './helpers.js';

async function finalStatus(service: TestService, documentId: string): Promise<Record<string, unknown>> {
  let status: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        const res = await fetch(`${service.url}/upload-status?documentId=${documentId}`);
        status = res.status === 200 ? ((await res.json()) as Record<string, unknown>) : {};
        return (status.remaining_steps as unknown[] | undefined)?.length === 0 || status.failed === true;
      },
      { timeout: 30_000, interval: 50 },
    )
    .toBe(true);
  return status;
}

describe('readiness over HTTP', () => {
  const service = useTestService();

  it('a document with one failed file among good ones is failed, not completed, and the error names the file', async () => {
    const form = uploadForm({ documentId: 'partly' }, [
      { name: 'good.txt', content: 'Narwhals have a long spiral tusk.' },
      { name: 'blob.dat', content: new Uint8Array([0, 1, 2, 0, 3]) },
    ]);
    expect((await fetch(`${service().url}/upload`, { method: 'POST', body: form })).status).toBe(202);
    const status = await finalStatus(service(), 'partly');
    expect(status).toMatchObject({ completed: false, failed: true, empty: false, remaining_steps: [] });
    expect(status.error).toMatch(/1 of 2 file\(s\) could not be processed: blob\.dat: no decoder for application\/octet-stream/);
    expect(status.failed_files).toEqual([{ name: 'blob.dat', error: expect.stringMatching(/no decoder/) }]);
  });

  it("Kernel Memory's step names gen_embeddings_parallel and summarize_parallel are accepted and run the same handlers", async () => {
    const steps = ['extract', 'partition', 'gen_embeddings_parallel', 'save_records'];
    const form = uploadForm({ documentId: 'kmsteps', steps }, [{ name: 'walrus.txt', content: 'Walruses haul out on sea ice to rest.' }]);
    expect((await fetch(`${service().url}/upload`, { method: 'POST', body: form })).status).toBe(202);
    expect(await finalStatus(service(), 'kmsteps')).toMatchObject({ completed: true, failed: false, completed_steps: steps });
    const search = await fetch(`${service().url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'walruses sea ice' }),
    });
    expect(((await search.json()) as { results: Array<{ documentId: string }> }).results[0]?.documentId).toBe('kmsteps');
    // summarize_parallel is summarize: this service has no text generator, so it fails with summarize's own reason.
    const summary = uploadForm({ documentId: 'kmsummary', steps: ['extract', 'partition', 'summarize_parallel'] }, [
      { name: 'seal.txt', content: 'Seals sleep in water.' },
    ]);
    expect((await fetch(`${service().url}/upload`, { method: 'POST', body: summary })).status).toBe(202);
    expect((await finalStatus(service(), 'kmsummary')).error).toMatch(
      /step "summarize_parallel" failed: the summarize step needs a text generator/,
    );
  });
});
