import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@km/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, freePort, kmEnv, startKm } from './km-process.js';

/**
 * `km serve` configured by environment variables alone (`KM_MEMORY_DB=…`), as an operator runs
 * it: documents uploaded over HTTP become records in that memory DB, a filtered search finds
 * them, and deleting a document removes its records. `skip` gives the one-line reason when the
 * backend is missing.
 */
export function describeServiceOnMemoryDb(
  name: string,
  setup:
    | {
        env: Record<string, string>;
        /** Records of an index, read from the backend itself (`dataDir` is the service's data folder). */
        countRecords: (index: string, dataDir: string) => Promise<number>;
      }
    | { skip: string },
): void {
  describe.skipIf('skip' in setup)(`km serve with ${name} as the memory DB`, () => {
    let dataDir: string | undefined;
    let server: ChildProcess | undefined;
    afterAll(async () => {
      if (server && server.exitCode === null) {
        server.kill('SIGTERM');
        await exited(server);
      }
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('ingests uploads into it, searches them with a tag filter, and deletes a document’s records', { timeout: 90_000 }, async () => {
      if ('skip' in setup) return;
      dataDir = await mkdtemp(join(tmpdir(), 'km-service-db-'));
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const index = `svc${Date.now().toString(36)}`;
      server = await startKm(
        ['serve', '--port', String(port), '--data-dir', dataDir],
        'listening on',
        kmEnv({ KM_EMBEDDINGS: 'hashing', ...setup.env }),
      );
      const json = async (path: string, body?: unknown) => {
        const response = await fetch(
          `${url}${path}`,
          body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        );
        expect(response.ok, `${path}: ${response.status}`).toBe(true);
        return response.json() as Promise<Record<string, unknown>>;
      };
      const documents = [
        { id: 'comet', text: 'Halley comet returns to the inner solar system every 76 years.', tag: 'space' },
        { id: 'bread', text: 'Sourdough bread rises slowly with wild yeast and lactic bacteria.', tag: 'kitchen' },
      ];
      for (const doc of documents) {
        const form = new FormData();
        form.append('index', index);
        form.append('documentId', doc.id);
        form.append('tags', `topic:${doc.tag}`);
        form.append('file1', new Blob([doc.text], { type: 'text/plain' }), `${doc.id}.txt`);
        expect((await fetch(`${url}/upload`, { method: 'POST', body: form })).status).toBe(202);
      }
      await eventually(
        async () => {
          const statuses = await Promise.all(documents.map((d) => json(`/upload-status?index=${index}&documentId=${d.id}`)));
          expect(statuses.map((s) => s.completed)).toEqual([true, true]);
        },
        60_000,
        200,
      );

      // The records are in the configured backend, not in the embedded default.
      expect(await setup.countRecords(index, dataDir)).toBe(documents.length);
      const indexes = (await json('/indexes')) as { results: Array<{ name: string }> };
      expect(indexes.results.map((i) => i.name)).toContain(index);
      const search = (query: string, filters?: unknown) =>
        json('/search', { index, query, minRelevance: 0, limit: 10, ...(filters ? { filters } : {}) });
      // The query matches the comet best and the bread a little: the filter must exclude the best match.
      const query = 'Halley comet returns with sourdough';
      // Some backends (MongoDB Atlas Vector Search) make writes searchable a moment after they land.
      await eventually(
        async () => {
          const all = (await search(query)) as { results: Array<{ documentId: string }> };
          expect(all.results.map((r) => r.documentId)).toEqual(['comet', 'bread']);
          const kitchen = (await search(query, [{ topic: ['kitchen'] }])) as {
            results: Array<{ documentId: string; partitions: Array<{ text: string }> }>;
          };
          expect(kitchen.results.map((r) => r.documentId)).toEqual(['bread']);
          expect(kitchen.results[0]!.partitions[0]!.text).toContain('Sourdough');
        },
        30_000,
        200,
      );

      expect((await fetch(`${url}/documents?index=${index}&documentId=comet`, { method: 'DELETE' })).status).toBe(202);
      await eventually(
        async () => expect((await fetch(`${url}/upload-status?index=${index}&documentId=comet`)).status).toBe(404),
        30_000,
        200,
      );
      await eventually(
        async () => {
          const after = (await search(query)) as { results: Array<{ documentId: string }> };
          expect(after.results.map((r) => r.documentId)).toEqual(['bread']);
        },
        30_000,
        200,
      );
      expect(await setup.countRecords(index, dataDir)).toBe(1);

      expect((await fetch(`${url}/indexes?index=${index}`, { method: 'DELETE' })).status).toBe(202);
      await eventually(
        async () => {
          const listed = (await json('/indexes')) as { results: Array<{ name: string }> };
          expect(listed.results.map((i) => i.name)).not.toContain(index);
        },
        30_000,
        200,
      );
    });
  });
}
