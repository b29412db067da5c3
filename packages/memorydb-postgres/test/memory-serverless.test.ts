import { HashingEmbeddingGenerator, KernelMemoryBuilder, MemoryFilters, silentLogger } from '@km/core';
import { collect } from '@km/conformance';
import { afterAll, expect, it } from 'vitest';
import { PostgresMemoryDb } from '../src/index.js';
import { freshPglite } from './fresh-pglite.js';

const pglite = await freshPglite();
afterAll(async () => pglite.close());

it('the whole pipeline runs on Postgres: import creates the table, search filters, delete leaves nothing', async () => {
  const db = new PostgresMemoryDb({ pglite });
  const memory = new KernelMemoryBuilder()
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withMemoryDb(db)
    .withLogger(silentLogger)
    .build();
  await memory.importText('Lighthouses guide ships along rocky coasts at night.', {
    documentId: 'light',
    index: 'Sea Notes',
    tags: { kind: ['coast'] },
  });
  await memory.importText('Submarines dive below the surface using ballast tanks.', {
    documentId: 'sub',
    index: 'Sea Notes',
    tags: { kind: ['deep'] },
  });
  expect(await db.getIndexes()).toContain('sea-notes');
  const found = await memory.search('ships near the coast', { index: 'sea notes', filter: MemoryFilters.byTag('kind', 'coast') });
  expect(found.results.map((c) => c.documentId)).toEqual(['light']);
  await memory.deleteDocument('light', 'sea-notes');
  const left = await collect(db.getList('sea-notes'));
  expect(left.map((r) => r.tags.__document_id![0])).toEqual(['sub']);
});
