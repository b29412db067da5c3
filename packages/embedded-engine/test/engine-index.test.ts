import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError, EngineIndex, type EngineRecord, isEngineError, type TagFilter } from '../src/index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'engine-index-'));
  dirs.push(dir);
  return join(dir, 'index');
}

const byTag = (key: string, value: string | null, negated = false): TagFilter => ({ conditions: [{ key, value, negated }] });

function record(id: string, vector: number[], user: string, text = id): EngineRecord {
  return { id, vector, tags: { user: [user] }, payloadJson: JSON.stringify({ text }) };
}

const RECORDS = [
  record('a', [1, 0, 0], 'ann'),
  record('b', [0.9, 0.1, 0], 'bob'),
  record('c', [0, 1, 0], 'ann'),
  record('d', [0, 0, 1], 'cid'),
];

describe('EngineIndex', () => {
  it('in memory: upsert, search with filters, list, get, delete', async () => {
    const index = await EngineIndex.open({ dimensions: 3 });
    await index.upsert(RECORDS);
    expect(index.size).toBe(4);
    const all = await index.search([1, 0, 0], { minRelevance: -1, limit: 10 });
    expect(all.map(([hit]) => hit.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(all[0]![1]).toBeCloseTo(1, 5);
    const ann = await index.search([1, 0, 0], { filters: [byTag('user', 'ann')], minRelevance: -1 });
    expect(ann.map(([hit]) => hit.id)).toEqual(['a', 'c']);
    const notAnn = await index.search([1, 0, 0], { filters: [byTag('user', 'ann', true)], minRelevance: -1 });
    expect(notAnn.map(([hit]) => hit.id)).toEqual(['b', 'd']);
    const either = index.list({ filters: [byTag('user', 'bob'), byTag('user', 'cid')] });
    expect(either.map((hit) => hit.id)).toEqual(['b', 'd']);
    expect(index.get('c', true)).toMatchObject({ id: 'c', tags: { user: ['ann'] }, payloadJson: '{"text":"c"}' });
    expect(Array.from(index.get('c', true)!.vector!)).toEqual([0, 1, 0]);
    expect(await index.delete('c')).toBe(true);
    expect(await index.delete('c')).toBe(false);
    expect(index.has('c')).toBe(false);
    expect(index.list().map((hit) => hit.id)).toEqual(['a', 'b', 'd']);
    await index.close();
  });

  it('keeps its records in its folder, and reads them back on open', async () => {
    const folder = await tempFolder();
    const index = await EngineIndex.open({ folder, dimensions: 3, durable: false });
    await index.upsert(RECORDS);
    await index.upsert([record('a', [0, 0, 1], 'zoe', 'changed')]);
    await index.delete('b');
    await index.close();
    expect((await readdir(folder)).sort()).toContain('records.log');
    const again = await EngineIndex.open({ folder });
    expect(again.dimensions).toBe(3);
    expect(again.lostTail).toBeUndefined();
    expect(again.list().map((hit) => [hit.id, hit.tags, hit.payloadJson])).toEqual([
      ['a', { user: ['zoe'] }, '{"text":"changed"}'],
      ['c', { user: ['ann'] }, '{"text":"c"}'],
      ['d', { user: ['cid'] }, '{"text":"d"}'],
    ]);
    await again.close();
  });

  it('refresh reads the writes of another instance of the same folder', async () => {
    const folder = await tempFolder();
    const writer = await EngineIndex.open({ folder, dimensions: 3, durable: false });
    const reader = await EngineIndex.open({ folder });
    await writer.upsert(RECORDS.slice(0, 2));
    expect(reader.size).toBe(0);
    await reader.refresh();
    expect(reader.list().map((hit) => hit.id)).toEqual(['a', 'b']);
    await writer.close();
    await reader.close();
  });

  it('refuses a wrong vector size, a new index without dimensions and bad settings with EngineErrors', async () => {
    const folder = await tempFolder();
    await expect(EngineIndex.open({ folder })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(EngineIndex.open({ hnsw: { m: 1 }, dimensions: 3 })).rejects.toBeInstanceOf(EngineError);
    await expect(EngineIndex.open({ scanThreads: -1, dimensions: 3 })).rejects.toMatchObject({ code: 'invalid_argument' });
    const index = await EngineIndex.open({ folder, dimensions: 3 });
    await expect(index.upsert([record('x', [1, 0], 'ann')])).rejects.toMatchObject({ code: 'vector_size_mismatch' });
    await expect(index.search([1, 0])).rejects.toMatchObject({ code: 'vector_size_mismatch' });
    await index.close();
    const error = await EngineIndex.open({ folder, dimensions: 4 }).catch((e: unknown) => e);
    expect(isEngineError(error) && error.code).toBe('vector_size_mismatch');
    expect(() => index.list()).toThrow(EngineError);
  });

  it('searches on scan threads with the results of the calling thread', async () => {
    const threaded = await EngineIndex.open({ dimensions: 3, scanThreads: 1, parallelScanThreshold: 0 });
    const plain = await EngineIndex.open({ dimensions: 3 });
    await threaded.upsert(RECORDS);
    await plain.upsert(RECORDS);
    const query = [0.5, 0.5, 0.1];
    expect(await threaded.search(query, { minRelevance: -1 })).toEqual(await plain.search(query, { minRelevance: -1 }));
    await threaded.close();
    await plain.close();
  });
});
