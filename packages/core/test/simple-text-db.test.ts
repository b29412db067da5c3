import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryFilters, SimpleTextDb, isKmError } from '../src/index.js';
import { collect } from './helpers.js';

const dirs: string[] = [];
const opened: SimpleTextDb[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// The DESIGN §4 semantics run through @km/conformance in tests-integration.

describe('SimpleTextDb keyword search', () => {
  const seed = async (db: SimpleTextDb) => {
    await db.upsert('docs', { id: 'a', vector: [], tags: { k: ['1'] }, payload: { text: 'The Moon orbits the Earth.' } });
    await db.upsert('docs', { id: 'b', vector: [], tags: { k: ['2'] }, payload: { text: 'The Sun is a star; the Earth orbits it.' } });
    await db.upsert('docs', { id: 'c', vector: [], tags: { k: ['3'] }, payload: { text: 'Carbon is an element.' } });
  };

  it('ranks by BM25 (every query word outranks some of them); records with none are left out', async () => {
    const db = new SimpleTextDb();
    await seed(db);
    const hits = await collect(db.getSimilarList('docs', 'moon earth'));
    expect(hits.map(([r]) => r.id)).toEqual(['a', 'b']);
    const [[, full], [, half]] = hits as [[unknown, number], [unknown, number]];
    expect(full).toBeGreaterThan(half);
    expect(full).toBeLessThanOrEqual(1);
    expect(half).toBeGreaterThan(0);
    expect(await collect(db.getSimilarList('docs', 'moon earth', { minRelevance: (full + half) / 2 }))).toHaveLength(1);
    expect((await collect(db.getSimilarList('docs', 'earth', { filters: [MemoryFilters.notTag('k', '1')] }))).map(([r]) => r.id)).toEqual([
      'b',
    ]);
  });

  it('has the lexicalSearch capability: mode lexical ranks the same way; hybrid is refused (no vectors)', async () => {
    const db = new SimpleTextDb();
    await seed(db);
    expect(db.capabilities.lexicalSearch).toBe(true);
    expect(await collect(db.getSimilarList('docs', 'moon earth', { mode: 'lexical' }))).toEqual(
      await collect(db.getSimilarList('docs', 'moon earth')),
    );
    await expect(collect(db.getSimilarList('docs', 'moon', { mode: 'hybrid' }))).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_argument'),
    );
  });

  it('refuses a vector query with a typed error', async () => {
    const db = new SimpleTextDb();
    await seed(db);
    await expect(collect(db.getSimilarList('docs', [1, 2, 3]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
  });

  it('survives a restart', async () => {
    const d = await mkdtemp(join(tmpdir(), 'km-stdb-'));
    dirs.push(d);
    const db = new SimpleTextDb({ directory: d });
    await seed(db);
    await db.delete('docs', { id: 'c' });
    await db.close();
    const reopened = new SimpleTextDb({ directory: d });
    opened.push(reopened);
    expect((await collect(reopened.getList('docs'))).map((r) => r.id)).toEqual(['a', 'b']);
    expect((await collect(reopened.getSimilarList('docs', 'orbits', { mode: 'lexical' }))).map(([r]) => r.id)).toEqual(['a', 'b']);
    expect(await collect(reopened.getSimilarList('docs', 'carbon'))).toEqual([]); // deleted before the restart
  });
});
