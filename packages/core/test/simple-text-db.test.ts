import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryFilters, SimpleTextDb, isKmError } from '../src/index.js';
import { Bm25Index } from '../src/text-search/bm25-index.js';
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

  it('counts records without text in N, as BM25 does, also after deletes and a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-text-blank-'));
    dirs.push(dir);
    const db = new SimpleTextDb({ directory: dir, durable: false });
    opened.push(db);
    await seed(db);
    for (let i = 0; i < 4; i++) await db.upsert('docs', { id: `blank${i}`, vector: [], tags: {}, payload: { n: i } });
    await db.delete('docs', { id: 'blank3' });
    const reference = new Bm25Index();
    reference.add('a', 'The Moon orbits the Earth.');
    reference.add('b', 'The Sun is a star; the Earth orbits it.');
    reference.add('c', 'Carbon is an element.');
    for (let i = 0; i < 3; i++) reference.add(`blank${i}`, '');
    const want = reference.search('moon earth', { limit: 10 });
    const scores = async (target: SimpleTextDb) => (await collect(target.getSimilarList('docs', 'moon earth'))).map(([r, s]) => [r.id, s]);
    expect(await scores(db)).toEqual(want);
    await db.close();
    const restarted = new SimpleTextDb({ directory: dir, durable: false });
    opened.push(restarted);
    expect(await scores(restarted)).toEqual(want);
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
