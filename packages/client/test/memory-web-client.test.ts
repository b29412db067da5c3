import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document, MemoryFilters, isKmError, type IKernelMemory } from '@km/core';
import { startTestService, type TestService } from '@km/service/testing';
import * as wire from '@km/wire';
import { MemoryWebClient, MemoryWebClientError, readServerSentEvents } from '../src/index.js';

const KEY = 'client-test-key-'.padEnd(40, 'x');
let service: TestService;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-client-'));
  service = await startTestService({ logLevel: 'warn', auth: { enabled: true, keys: [KEY] } });
});
afterAll(async () => {
  await service.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** The same calls an application makes on MemoryServerless; only the constructor differs. */
async function scenario(memory: IKernelMemory & { waitForDocument?: MemoryWebClient['waitForDocument'] }) {
  const path = join(dir, 'jupiter.md');
  await writeFile(path, '# Jupiter\n\nJupiter is the largest planet. It has a Great Red Spot, a storm bigger than Earth.');
  await memory.importDocument(path, { documentId: 'jupiter', index: 'solar', tags: { kind: ['planet'], size: ['big'] } });
  await memory.importDocument(new Document('pluto').addBuffer('pluto.txt', 'Pluto is a dwarf planet in the Kuiper belt.'), {
    index: 'solar',
    tags: { kind: ['dwarf'] },
  });
  await memory.importText('Ceres is a dwarf planet in the asteroid belt.', {
    documentId: 'ceres',
    index: 'solar',
    tags: { kind: ['dwarf'] },
  });
}

describe('MemoryWebClient against a real km service', () => {
  let memory: MemoryWebClient;
  beforeAll(() => {
    memory = new MemoryWebClient(service.url, { apiKey: KEY });
  });

  it('imports files, documents and text, and waits until they are ready', async () => {
    await scenario(memory);
    const seen: string[][] = [];
    const status = await memory.waitForDocument('jupiter', {
      index: 'solar',
      pollIntervalMs: 30,
      onStatus: (s) => seen.push(s.completed_steps),
    });
    expect(status.completed).toBe(true);
    expect(seen.at(-1)).toEqual(['extract', 'partition', 'gen_embeddings', 'save_records']);
    await memory.waitForDocument('pluto', { index: 'solar', pollIntervalMs: 30 });
    await memory.waitForDocument('ceres', { index: 'solar', pollIntervalMs: 30 });
    expect(await memory.isDocumentReady('ceres', 'solar')).toBe(true);
    expect(await memory.getDocumentStatus('nobody', 'solar')).toBeNull();
    expect(await memory.listIndexes()).toEqual([{ name: 'solar' }]);
  });

  it('searches with filters, including NOT', async () => {
    const dwarfs = await memory.search('dwarf planet belt', { index: 'solar', filter: MemoryFilters.byTag('kind', 'dwarf') });
    expect(dwarfs.results.map((r) => r.documentId).sort()).toEqual(['ceres', 'pluto']);
    const notPluto = await memory.search('dwarf planet belt', {
      index: 'solar',
      filters: [MemoryFilters.byTag('kind', 'dwarf').notTag('__document_id', 'pluto')],
    });
    expect(notPluto.results.map((r) => r.documentId)).toEqual(['ceres']);
  });

  it('asks, and streams the answer over SSE', async () => {
    const answer = await memory.ask('Which planet has the Great Red Spot storm?', { index: 'solar' });
    expect(answer.noResult).toBe(false);
    expect(answer.relevantSources[0]?.documentId).toBe('jupiter');
    const chunks = [];
    for await (const chunk of memory.askStreaming('Which planet has the Great Red Spot storm?', { index: 'solar' })) chunks.push(chunk);
    expect(chunks[0]?.streamState).toBe('reset');
    expect(chunks.at(-1)?.streamState).toBe('last');
    expect(chunks.map((c) => c.text).join('')).toBe(answer.text);
  });

  it('downloads a file', async () => {
    const file = await memory.exportFile('pluto', 'pluto.txt', 'solar');
    expect(file.fileType).toBe('text/plain');
    expect(file.size).toBe(43);
    expect(await text(await file.getStream())).toBe('Pluto is a dwarf planet in the Kuiper belt.');
  });

  it('turns ProblemDetails into typed errors', async () => {
    const unknownStep = await memory.importText('x', { documentId: 'bad', steps: ['extract', 'teleport'] }).catch((e: unknown) => e);
    expect(unknownStep).toBeInstanceOf(MemoryWebClientError);
    expect(unknownStep).toMatchObject({ status: 400, code: 'handler_not_found' });
    expect((unknownStep as Error).message).toMatch(/teleport/);
    const reserved = await memory.importText('x', { documentId: 'bad', tags: { __file_id: ['nope'] } }).catch((e: unknown) => e);
    expect(isKmError(reserved, 'invalid_tag')).toBe(true); // refused before sending
    const missing = await memory.exportFile('nobody', 'a.txt', 'solar').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MemoryWebClientError);
    expect(missing).toMatchObject({ status: 404, code: 'document_not_found', requestId: expect.any(String) });
    const missingFile = await memory.exportFile('pluto', 'charon.txt', 'solar').catch((e: unknown) => e);
    expect(missingFile).toMatchObject({ status: 404, code: 'file_not_found' });
    const wrongKey = await new MemoryWebClient(service.url, { apiKey: 'nope' }).listIndexes().catch((e: unknown) => e);
    expect(wrongKey).toMatchObject({ status: 403, code: 'unauthorized' });
    const unreachable = await new MemoryWebClient('http://127.0.0.1:1').listIndexes().catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ code: 'transient', transient: true });
    expect(() => new MemoryWebClient('ftp://example.com')).toThrow(/http or https/);
  });

  it('deletes a document and an index', async () => {
    await memory.deleteDocument('pluto', 'solar');
    const deadline = Date.now() + 10_000;
    while ((await memory.getDocumentStatus('pluto', 'solar')) !== null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 30));
    expect(await memory.getDocumentStatus('pluto', 'solar')).toBeNull();
    await memory.deleteDocument('never-existed', 'solar'); // a no-op, as in KM
    await memory.deleteIndex('solar');
    while ((await memory.listIndexes()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 30));
    expect(await memory.listIndexes()).toEqual([]);
  });
});

describe('readServerSentEvents', () => {
  it("is @km/wire's reader (tested there), re-exported", () => {
    expect(readServerSentEvents).toBe(wire.readServerSentEvents);
  });
});
