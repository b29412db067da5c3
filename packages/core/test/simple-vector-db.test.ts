import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryFilters, SimpleVectorDb, type MemoryRecord } from '../src/index.js';
import { VectorIndex } from '@km/embedded-engine';

const dirs: string[] = [];
const opened: SimpleVectorDb[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-svdb-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const db of opened) await db.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

// The DESIGN §4 semantics run through @km/conformance in tests-integration.

describe('SimpleVectorDb persistence', () => {
  const record = (id: string, v: number[], user = 'u'): MemoryRecord => ({ id, vector: v, tags: { user: [user] }, payload: { text: id } });

  it('a new instance over the same folder sees every write, delete and index', async () => {
    const dir = await tempDir();
    const db = new SimpleVectorDb({ directory: dir });
    await db.upsertBatch('docs', [record('a', [1, 0, 0]), record('b', [0, 1, 0], 'v'), record('c', [0, 0, 1])]);
    await db.upsert('docs', record('b', [0, 1, 1], 'w'));
    await db.delete('docs', { id: 'c' });
    await db.createIndex('empty', 7);
    await db.close();

    const reopened = new SimpleVectorDb({ directory: dir });
    expect(await reopened.getIndexes()).toEqual(['docs', 'empty']);
    const all = await collect(reopened.getList('docs', { withEmbeddings: true }));
    expect(all.map((r) => r.id)).toEqual(['a', 'b']);
    expect(all[1]!.tags).toEqual({ user: ['w'] });
    expect(Array.from(all[1]!.vector).map((x) => Math.round(x * 1e5) / 1e5)).toEqual([0, 1, 1]);
    expect((await collect(reopened.getList('docs', { filters: [MemoryFilters.byTag('user', 'w')] }))).map((r) => r.id)).toEqual(['b']);
    await expect(reopened.upsert('empty', record('x', [1, 2, 3]))).rejects.toMatchObject({ code: 'vector_size_mismatch' });
  });

  it('a torn write at the end of the log (crash mid-write) is dropped; earlier records survive', async () => {
    const dir = await tempDir();
    const db = new SimpleVectorDb({ directory: dir });
    await db.upsertBatch('docs', [record('a', [1, 0, 0]), record('b', [0, 1, 0])]);
    await db.close();
    const log = join(dir, 'docs', 'records.log');
    const intactSize = (await stat(log)).size;
    // Half an entry: a length header promising more bytes than were written.
    const torn = Buffer.alloc(20);
    torn.writeUInt32LE(500, 0);
    await appendFile(log, torn);

    const reopened = new SimpleVectorDb({ directory: dir });
    expect((await collect(reopened.getList('docs'))).map((r) => r.id)).toEqual(['a', 'b']);
    expect((await stat(log)).size).toBe(intactSize);
    await reopened.upsert('docs', record('c', [0, 0, 1]));
    await reopened.close();
    const third = new SimpleVectorDb({ directory: dir });
    expect((await collect(third.getList('docs'))).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('a corrupted entry (bad checksum) ends the log there', async () => {
    const dir = await tempDir();
    const db = new SimpleVectorDb({ directory: dir });
    await db.upsert('docs', record('a', [1, 0, 0]));
    await db.upsert('docs', record('b', [0, 1, 0]));
    await db.close();
    const log = join(dir, 'docs', 'records.log');
    const bytes = await readFile(log);
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff; // flip bits in b's vector
    await writeFile(log, bytes);
    const reopened = new SimpleVectorDb({ directory: dir });
    expect((await collect(reopened.getList('docs'))).map((r) => r.id)).toEqual(['a']);
  });

  it('compacts a log full of overwritten entries and keeps the latest state', async () => {
    const dir = await tempDir();
    const db = new SimpleVectorDb({ directory: dir, durable: false });
    for (let round = 0; round < 30; round++) {
      await db.upsertBatch(
        'docs',
        Array.from({ length: 50 }, (_, i) => record(`r${i}`, [i, round, 1], `round-${round}`)),
      );
    }
    await db.close();
    const log = join(dir, 'docs', 'records.log');
    // 1500 entries written; compaction keeps the file near 50 live records.
    expect((await stat(log)).size).toBeLessThan(1500 * 60);
    const reopened = new SimpleVectorDb({ directory: dir });
    const all = await collect(reopened.getList('docs'));
    expect(all).toHaveLength(50);
    expect(all.every((r) => r.tags.user![0] === 'round-29')).toBe(true);
  });

  it('search spans several segments and stays exact after deletes (swap-remove)', async () => {
    // segments of 20,000 rows: 70,000 records fill four (the default segment holds up to 2^20 rows)
    const index = new VectorIndex(4, { segmentRows: 20_000 });
    const n = 70_000;
    for (let i = 0; i < n; i++) {
      const angle = (i / n) * Math.PI;
      index.upsert(`r${i}`, [Math.cos(angle), Math.sin(angle), 0, 0], { g: [String(i % 10)] }, '{}');
    }
    for (let i = 0; i < 1000; i++) index.delete(`r${i}`);
    const [best, score] = (await index.search([1, 0, 0, 0], { limit: 1, minRelevance: -1 }))[0]!;
    expect(best.id).toBe('r1000');
    expect(score).toBeCloseTo(Math.cos((1000 / n) * Math.PI), 4);
    const filtered = await index.search([0, 1, 0, 0], { limit: 3, minRelevance: -1, filters: [MemoryFilters.byTag('g', '7')] });
    expect(filtered.map(([r]) => r.id)).toEqual(['r34997', 'r35007', 'r34987']);
    expect(index.size).toBe(n - 1000);
  });
});

describe('SimpleVectorDb shared by several processes (one writer, readers follow the log)', () => {
  const record = (id: string, x: number, tag = 'a'): MemoryRecord => ({
    id,
    vector: [x, 1 - x, 0.5],
    tags: { t: [tag] },
    payload: { text: id },
  });

  it('a reader sees indexes, upserts and deletes that another instance writes after it opened', async () => {
    const dir = await tempDir();
    const reader = new SimpleVectorDb({ directory: dir, durable: false });
    expect(await reader.getIndexes()).toEqual([]); // opened before anything exists
    const writer = new SimpleVectorDb({ directory: dir, durable: false });
    await writer.upsertBatch('shared', [record('one', 0.1), record('two', 0.9)]);
    expect(await reader.getIndexes()).toEqual(['shared']);
    expect((await collect(reader.getList('shared'))).map((r) => r.id)).toEqual(['one', 'two']);
    await writer.upsert('shared', record('three', 0.5, 'b'));
    await writer.delete('shared', { id: 'one' });
    const found = await collect(reader.getSimilarList('shared', [0.5, 0.5, 0.5], { filters: [MemoryFilters.byTag('t', 'b')] }));
    expect(found.map(([r]) => r.id)).toEqual(['three']);
    expect(await reader.count('shared')).toBe(2);
    await writer.deleteIndex('shared');
    expect(await reader.getIndexes()).toEqual([]);
    expect(await collect(reader.getList('shared'))).toEqual([]);
    await writer.close();
    await reader.close();
  });

  it('a reader reloads after the writer compacts the log', async () => {
    const dir = await tempDir();
    const writer = new SimpleVectorDb({ directory: dir, durable: false });
    const reader = new SimpleVectorDb({ directory: dir, durable: false });
    await writer.upsert('docs', record('keep', 0.2));
    expect(await reader.count('docs')).toBe(1);
    const before = (await stat(join(dir, 'docs', 'records.log'))).ino;
    for (let i = 0; i < 1100; i++) await writer.upsert('docs', record('churn', (i % 10) / 10)); // enough dead entries to compact
    expect((await stat(join(dir, 'docs', 'records.log'))).ino).not.toBe(before);
    await writer.upsert('docs', record('after', 0.7));
    expect((await collect(reader.getList('docs'))).map((r) => r.id).sort()).toEqual(['after', 'churn', 'keep']);
    await writer.close();
    await reader.close();
  });

  it('a reader ignores a half-written entry until it is complete, and never cuts it', async () => {
    const dir = await tempDir();
    const writer = new SimpleVectorDb({ directory: dir, durable: false });
    await writer.upsert('docs', record('first', 0.3));
    await writer.close();
    const log = join(dir, 'docs', 'records.log');
    const full = await readFile(log);
    // Another process appends a second entry in two writes; the reader looks in between.
    const second = new SimpleVectorDb({ directory: join(dir, 'scratch'), durable: false });
    await second.upsert('docs', record('second', 0.6));
    await second.close();
    const entry = await readFile(join(dir, 'scratch', 'docs', 'records.log'));
    const reader = new SimpleVectorDb({ directory: dir, durable: false });
    expect(await reader.count('docs')).toBe(1);
    await appendFile(log, entry.subarray(0, 10));
    expect(await reader.count('docs')).toBe(1);
    expect((await stat(log)).size).toBe(full.length + 10); // not truncated by the reader
    await appendFile(log, entry.subarray(10));
    expect((await collect(reader.getList('docs'))).map((r) => r.id)).toEqual(['first', 'second']);
    await reader.close();
  });
});
