import { join } from 'node:path';
import { EngineIndex } from '@km/embedded-engine';
import { describe, expect, it } from 'vitest';
import { MemoryFilters, SimpleVectorDb } from '../src/index.js';
import { collect, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-engine-folder-');

describe('SimpleVectorDb and @km/embedded-engine share their folder format', () => {
  it('an index folder SimpleVectorDb wrote opens with EngineIndex (core filters fit the engine), and back', async () => {
    const directory = await tempDir();
    const db = new SimpleVectorDb({ directory, durable: false });
    await db.upsertBatch('My Notes', [
      { id: 'a', vector: [1, 0, 0], tags: { user: ['ann'] }, payload: { text: 'apples' } },
      { id: 'b', vector: [0, 1, 0], tags: { user: ['bob'] }, payload: { text: 'boats' } },
    ]);
    await db.close();

    const index = await EngineIndex.open({ folder: join(directory, 'my-notes') });
    expect(index.dimensions).toBe(3);
    const hits = await index.search([1, 0.1, 0], { filters: [MemoryFilters.byTag('user', 'ann')] });
    expect(hits.map(([hit]) => [hit.id, hit.payloadJson])).toEqual([['a', '{"text":"apples"}']]);
    await index.upsert([{ id: 'c', vector: [0, 0, 1], tags: { user: ['cid'] }, payloadJson: '{"text":"cars"}' }]);
    await index.close();

    const again = new SimpleVectorDb({ directory });
    try {
      const records = await collect(again.getList('my-notes', { limit: 10 }));
      expect(records.map((r) => [r.id, r.payload, r.tags])).toEqual([
        ['a', { text: 'apples' }, { user: ['ann'] }],
        ['b', { text: 'boats' }, { user: ['bob'] }],
        ['c', { text: 'cars' }, { user: ['cid'] }],
      ]);
      const lexical = await collect(again.getSimilarList('my-notes', 'cars', { mode: 'lexical', limit: 5 }));
      expect(lexical.map(([r]) => r.id)).toEqual(['c']);
    } finally {
      await again.close();
    }
  });
});
