import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document, isKmError, type DataPipelineStatus } from '@km/core';
import { startTestService, type TestService } from '@km/service/testing';
import { MemoryWebClient } from '../src/index.js';

describe('a document whose files partly failed is not ready for the client', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ logLevel: 'warn' });
  });
  afterAll(() => service.dispose());

  it('against a km service: waitForDocument rejects with pipeline_failed naming the file, isDocumentReady is false', async () => {
    const memory = new MemoryWebClient(service.url);
    const document = new Document('partly')
      .addBuffer('good.txt', 'Seals sleep in the water.')
      .addBuffer('blob.dat', Buffer.from([0, 1, 2, 3]));
    await memory.importDocument(document);
    const error = await memory.waitForDocument('partly', { pollIntervalMs: 30, timeoutMs: 15_000 }).catch((e: unknown) => e);
    expect(isKmError(error, 'pipeline_failed')).toBe(true);
    expect((error as Error).message).toMatch(/blob\.dat: no decoder/);
    expect(await memory.isDocumentReady('partly')).toBe(false);
    expect(await memory.getDocumentStatus('partly')).toMatchObject({
      completed: false,
      failed: true,
      failed_files: [{ name: 'blob.dat' }],
    });
  });

  it("against a service that reports such a document completed (KM's fields only): still not ready", async () => {
    const status: DataPipelineStatus = {
      completed: true,
      failed: false,
      empty: false,
      index: 'default',
      document_id: 'old',
      tags: {},
      creation: '',
      last_update: '',
      steps: ['extract'],
      remaining_steps: [],
      completed_steps: ['extract'],
      failed_files: [{ name: 'scan.pdf', error: 'no decoder for application/pdf' }],
    };
    const server: Server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(status)),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const memory = new MemoryWebClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      expect(await memory.isDocumentReady('old')).toBe(false);
      await expect(memory.waitForDocument('old', { pollIntervalMs: 10 })).rejects.toSatisfy(
        (e: unknown) => isKmError(e, 'pipeline_failed') && /scan\.pdf: no decoder for application\/pdf/.test((e as Error).message),
      );
    } finally {
      server.close();
    }
  });
});
