import { afterAll, describe, expect, it } from 'vitest';
import { MemoryFilters, SimpleVectorDb, type MemoryFilter, type MemoryRecord } from '../src/index.js';
import { VectorIndex } from '@km/embedded-engine';
import { collect, useTempDirs } from './helpers.js';
import { seededUniform } from './seeded-uniform.js';

const tempDir = useTempDirs('km-int8-');
const opened: SimpleVectorDb[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});
const open = (options: ConstructorParameters<typeof SimpleVectorDb>[0]) => {
  const db = new SimpleVectorDb(options);
  opened.push(db);
  return db;
};

/** Seeded vectors: uniform random, or clustered (1000 random centres plus noise). */
function vectorSource(kind: 'random' | 'clustered', dims: number, seed: number): () => Float32Array {
  const random = seededUniform(seed);
  if (kind === 'random') return () => Float32Array.from({ length: dims }, random);
  const centres = Array.from({ length: 1000 }, () => Float32Array.from({ length: dims }, random));
  return () => {
    const centre = centres[Math.floor((random() + 0.5) * centres.length)]!;
    return Float32Array.from(centre, (x) => x + 0.15 * random());
  };
}

const DIMS = 96;

describe('VectorIndex int8 search', () => {
  for (const kind of ['random', 'clustered'] as const) {
    it(`returns the float32 exact top 10 with its scores (${kind}, 5000 records, 2000 queries)`, async () => {
      const next = vectorSource(kind, DIMS, kind === 'random' ? 11 : 12);
      const exact = new VectorIndex(DIMS);
      const int8 = new VectorIndex(DIMS, { quantization: 'int8' });
      for (let i = 0; i < 5000; i++) {
        const v = next();
        exact.upsert(`r${i}`, v, {}, '{}');
        int8.upsert(`r${i}`, v, {}, '{}');
      }
      let found = 0;
      let scoreMismatches = 0;
      for (let q = 0; q < 2000; q++) {
        const query = next();
        const expected = await exact.search(query, { minRelevance: -1, limit: 10 });
        const actual = await int8.search(query, { minRelevance: -1, limit: 10 });
        const scores = new Map(expected.map(([e, s]) => [e.id, s]));
        for (const [entry, score] of actual) {
          if (!scores.has(entry.id)) continue;
          found++;
          if (Math.abs(scores.get(entry.id)! - score) > 1e-5) scoreMismatches++;
        }
      }
      expect(found / 20000).toBeGreaterThanOrEqual(0.999);
      expect(scoreMismatches).toBe(0);
    });
  }

  it('keeps codes in step with rows through replace and swap-remove deletes', async () => {
    const next = vectorSource('random', DIMS, 5);
    const exact = new VectorIndex(DIMS);
    const int8 = new VectorIndex(DIMS, { quantization: 'int8' });
    const both = (fn: (index: VectorIndex) => void) => {
      fn(exact);
      fn(int8);
    };
    for (let i = 0; i < 600; i++) {
      const v = next();
      both((x) => x.upsert(`r${i}`, v, {}, '{}'));
    }
    for (let i = 0; i < 600; i += 3) both((x) => x.delete(`r${i}`)); // swap-remove moves the last rows
    for (let i = 1; i < 600; i += 5) {
      const v = next();
      both((x) => x.upsert(`r${i}`, v, {}, '{}'));
    }
    for (let q = 0; q < 200; q++) {
      const query = next();
      const ids = async (x: VectorIndex) =>
        (await x.search(query, { minRelevance: -1, limit: 5 })).map(([e, s]) => [e.id, Math.round(s * 1e5)]);
      expect(await ids(int8)).toEqual(await ids(exact));
    }
  });
});

describe('SimpleVectorDb with quantization int8', () => {
  const records = (n: number, seed: number): MemoryRecord[] => {
    const next = vectorSource('clustered', DIMS, seed);
    return Array.from({ length: n }, (_, i) => ({
      id: `r${String(i).padStart(4, '0')}`,
      vector: next(),
      tags: { group: [String(i % 10)], parity: [i % 2 ? 'odd' : 'even'] },
      payload: { n: i },
    }));
  };
  const search = async (db: SimpleVectorDb, index: string, query: Float32Array, filters?: MemoryFilter[], minRelevance = -1, limit = 10) =>
    (await collect(db.getSimilarList(index, query, { limit, minRelevance, filters }))).map(([r, s]): [string, number] => [
      r.id,
      Math.round(s * 1e5),
    ]);

  it('answers filtered (few and many matches) and minRelevance searches like the float32 index', async () => {
    const data = records(2000, 21);
    const plain = open({});
    const int8 = open({ quantization: 'int8' });
    await plain.upsertBatch('docs', data);
    await int8.upsertBatch('docs', data);
    expect(int8.vectorIndex('docs')!.quantization).toBe('int8');
    const queries = records(40, 22).map((r) => r.vector as Float32Array);
    for (const query of queries) {
      const few = [MemoryFilters.byTag('group', '3')]; // 10%: scores only the matching rows
      const many = [MemoryFilters.byTag('parity', 'odd')]; // 50%: scans and skips the others
      expect(await search(int8, 'docs', query, few)).toEqual(await search(plain, 'docs', query, few));
      expect(await search(int8, 'docs', query, many)).toEqual(await search(plain, 'docs', query, many));
      const top = await search(plain, 'docs', query);
      const min = top[4]![1] / 1e5; // the exact 5th score: int8 must return the same 5 records
      expect(await search(int8, 'docs', query, undefined, min)).toEqual(await search(plain, 'docs', query, undefined, min));
      expect((await search(int8, 'docs', query, undefined, min)).length).toBeGreaterThanOrEqual(4);
    }
  });

  it('after upsert-replace, delete and a reload from disk, searches match the float32 index', async () => {
    const dir = await tempDir();
    const data = records(1500, 31);
    const plain = open({});
    const int8 = open({ directory: dir, quantization: 'int8', durable: false });
    for (const db of [plain, int8]) {
      await db.upsertBatch('docs', data);
      for (let i = 0; i < 1500; i += 4) await db.delete('docs', { id: data[i]!.id });
      await db.upsertBatch(
        'docs',
        records(300, 32).map((r, i) => ({ ...r, id: data[i * 5 + 1]!.id })),
      );
    }
    await int8.close();
    const reloaded = open({ directory: dir, quantization: 'int8' });
    expect(await reloaded.count('docs')).toBe(await plain.count('docs'));
    for (const query of records(30, 33).map((r) => r.vector as Float32Array)) {
      const expected = await search(plain, 'docs', query);
      expect(await search(reloaded, 'docs', query)).toEqual(expected);
    }
    expect(reloaded.vectorIndex('docs')!.quantization).toBe('int8');
  });

  it('applies per-index overrides by index name as given', async () => {
    const db = open({ quantization: 'int8', indexes: { 'Plain Docs': { quantization: 'none' } } });
    const other = open({ quantization: 'none', indexes: { Quantised: { quantization: 'int8' } } });
    const defaults = open({});
    const data = records(10, 41);
    await db.upsertBatch('Plain Docs', data);
    await db.upsertBatch('docs', data);
    await other.upsertBatch('quantised', data);
    await other.upsertBatch('docs', data);
    expect(db.vectorIndex('Plain Docs')!.quantization).toBe('none');
    expect(db.vectorIndex('docs')!.quantization).toBe('int8');
    expect(other.vectorIndex('Quantised')!.quantization).toBe('int8');
    expect(other.vectorIndex('docs')!.quantization).toBe('none');
    await defaults.upsertBatch('docs', data);
    expect(defaults.vectorIndex('docs')!.quantization).toBe('int8');
  });
});
