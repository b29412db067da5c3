import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryFilters, SimpleVectorDb, type MemoryRecord } from '../src/index.js';
import { Bm25Index } from '../src/text-search/bm25-index.js';
import { collect } from './helpers.js';

const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-lex-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const record = (id: string, text: string, tags: Record<string, string[]> = {}, vector = [1, 0, 0]): MemoryRecord => ({
  id,
  vector,
  tags,
  payload: { text },
});

const lexical = async (db: SimpleVectorDb, text: string, options: Parameters<SimpleVectorDb['getSimilarList']>[2] = {}) =>
  (await collect(db.getSimilarList('docs', text, { mode: 'lexical', ...options }))).map(([r]) => r.id);

const seed = [
  record('apollo', 'Apollo 11 landed on the Moon in 1969.', { kind: ['history'], lang: ['en'] }),
  record('mars', 'The Mars rover landed in a crater.', { kind: ['science'], lang: ['en'] }),
  record('cafe', 'Un café près de la Lune.', { kind: ['history'], lang: ['fr'] }),
  record('tokyo', '東京タワーは電波塔です。', { kind: ['travel'], lang: ['ja'] }),
];

describe('SimpleVectorDb lexical search (BM25 over payload.text)', () => {
  it('declares the capability and finds records by their words, with a score in (0, 1]', async () => {
    const db = new SimpleVectorDb();
    await db.upsertBatch('docs', seed);
    expect(db.capabilities.lexicalSearch).toBe(true);
    const hits = await collect(db.getSimilarList('docs', 'Who landed on the moon?', { mode: 'lexical' }));
    expect(hits.map(([r]) => r.id)).toEqual(['apollo', 'mars']);
    for (const [, score] of hits) expect(score > 0 && score <= 1).toBe(true);
    expect(hits[0]![0].vector).toHaveLength(0); // no embeddings unless asked
    expect(await lexical(db, 'CAFE')).toEqual(['cafe']); // accents and case folded
    expect(await lexical(db, '東京')).toEqual(['tokyo']);
    expect(await lexical(db, 'zebra')).toEqual([]);
  });

  it('honours withEmbeddings, limit and minRelevance (on the lexical score)', async () => {
    const db = new SimpleVectorDb();
    await db.upsertBatch('docs', seed);
    const hits = await collect(db.getSimilarList('docs', 'moon', { mode: 'lexical', withEmbeddings: true }));
    const withVector = hits[0]![0];
    expect(Array.from(withVector.vector)).toEqual([1, 0, 0]);
    expect(await lexical(db, 'landed', { limit: 1 })).toEqual(['mars']); // the shorter text of the two
    const [, [, second]] = (await collect(db.getSimilarList('docs', 'landed', { mode: 'lexical' }))) as [
      [MemoryRecord, number],
      [MemoryRecord, number],
    ];
    expect(await lexical(db, 'landed', { minRelevance: second + 1e-9 })).toEqual(['mars']);
  });

  it('applies filters before ranking: AND inside a filter, OR across filters, NOT', async () => {
    const db = new SimpleVectorDb();
    await db.upsertBatch('docs', seed);
    expect(await lexical(db, 'landed moon lune', { filters: [MemoryFilters.byTag('kind', 'history').byTag('lang', 'fr')] })).toEqual([
      'cafe',
    ]);
    const either = [MemoryFilters.byTag('lang', 'fr'), MemoryFilters.byTag('kind', 'science')];
    expect((await lexical(db, 'landed moon lune', { filters: either })).sort()).toEqual(['cafe', 'mars']);
    expect(await lexical(db, 'landed', { filters: [MemoryFilters.notTag('kind', 'history')] })).toEqual(['mars']);
    expect(await lexical(db, 'landed', { filters: [MemoryFilters.byTag('kind', 'nothing')] })).toEqual([]);
  });

  it('follows upserts and deletes: replaced text is no longer found, deleted records are gone', async () => {
    const db = new SimpleVectorDb();
    await db.upsertBatch('docs', seed);
    await db.upsert('docs', record('mars', 'Olympus Mons is a volcano.'));
    await db.delete('docs', { id: 'apollo' });
    expect(await lexical(db, 'landed')).toEqual([]);
    expect(await lexical(db, 'volcano')).toEqual(['mars']);
  });

  it('counts records without text in N, as BM25 does, also after deletes and a reopen', async () => {
    const dir = await tempDir();
    const db = new SimpleVectorDb({ directory: dir, durable: false });
    const blank = Array.from({ length: 5 }, (_, i) => ({ id: `blank${i}`, vector: [0, 1, 0], tags: {}, payload: { n: i } }));
    await db.upsertBatch('docs', [...seed, ...blank]);
    await db.delete('docs', { id: 'blank4' });
    // The same documents in a self-counting BM25 index: 4 with text, 4 without.
    const reference = new Bm25Index();
    for (const r of seed) reference.add(r.id, r.payload.text as string);
    for (let i = 0; i < 4; i++) reference.add(`blank${i}`, '');
    const want = reference.search('landed moon', { limit: 10 });
    const scores = async (target: SimpleVectorDb) =>
      (await collect(target.getSimilarList('docs', 'landed moon', { mode: 'lexical', minRelevance: 0 }))).map(([r, s]) => [r.id, s]);
    expect(await scores(db)).toEqual(want);
    // Without the blank records N is smaller and the scores differ: the count is what is tested.
    const textOnly = new Bm25Index();
    for (const r of seed) textOnly.add(r.id, r.payload.text as string);
    expect(textOnly.search('landed moon', { limit: 10 })).not.toEqual(want);
    await db.close();
    const reopened = new SimpleVectorDb({ directory: dir });
    expect(await scores(reopened)).toEqual(want);
    await reopened.close();
  });

  it('a missing index yields nothing', async () => {
    const db = new SimpleVectorDb();
    expect(await lexical(db, 'moon')).toEqual([]);
  });

  it('survives a reopen: the words are rebuilt from the log (no second file)', async () => {
    const dir = await tempDir();
    const db = new SimpleVectorDb({ directory: dir, durable: false });
    await db.upsertBatch('docs', seed);
    await db.delete('docs', { id: 'mars' });
    await db.close();
    const reopened = new SimpleVectorDb({ directory: dir });
    expect(await lexical(reopened, 'landed')).toEqual(['apollo']);
    expect(await lexical(reopened, 'lune')).toEqual(['cafe']);
    await reopened.close();
  });

  it("sees another process's writes and deletes, and the same words after that process compacts its log", async () => {
    const dir = await tempDir();
    const reader = new SimpleVectorDb({ directory: dir, durable: false });
    const writer = new SimpleVectorDb({ directory: dir, durable: false });
    await writer.upsertBatch('docs', seed);
    expect(await lexical(reader, 'landed')).toEqual(['mars', 'apollo']);
    await writer.upsert('docs', record('luna', 'Luna 2 landed first.'));
    await writer.delete('docs', { id: 'apollo' });
    expect((await lexical(reader, 'landed')).sort()).toEqual(['luna', 'mars']);
    const before = (await stat(join(dir, 'docs', 'records.log'))).ino;
    for (let i = 0; i < 1100; i++) await writer.upsert('docs', record('churn', `word${i % 7}`)); // compacts the log
    expect((await stat(join(dir, 'docs', 'records.log'))).ino).not.toBe(before);
    await writer.upsert('docs', record('after', 'landed after compaction'));
    expect((await lexical(reader, 'landed')).sort()).toEqual(['after', 'luna', 'mars']);
    expect(await lexical(reader, 'word0')).toEqual(['churn']); // the last churn write (1099 % 7 = 0)
    expect(await lexical(writer, 'word0')).toEqual(['churn']);
    await writer.close();
    await reader.close();
  });
});
