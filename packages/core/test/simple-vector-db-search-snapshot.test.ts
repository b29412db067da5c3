import { describe, expect, it } from 'vitest';
import { SimpleVectorDb } from '../src/index.js';
import { collect } from './helpers.js';

const DIMS = 8;

/** 2000 records; r5 points along the first axis, every other record elsewhere. */
async function filled(db: SimpleVectorDb): Promise<Float32Array> {
  const target = new Float32Array(DIMS);
  target[0] = 3;
  const records = Array.from({ length: 2000 }, (_, i) => {
    const vector = new Float32Array(DIMS);
    if (i === 5) vector.set(target);
    else for (let d = 1; d < DIMS; d++) vector[d] = ((i * 7 + d * 13) % 17) + 1;
    return { id: `r${i}`, vector, tags: { n: [String(i)] }, payload: { n: i } };
  });
  await db.upsertBatch('docs', records);
  return target;
}

/** Waits until the index has started a search on its worker threads. */
async function untilWorkersScan(db: SimpleVectorDb, before: number): Promise<void> {
  while (db.vectorIndex('docs')!.scanCounts.workers === before) await new Promise((resolve) => setImmediate(resolve));
}

describe('SimpleVectorDb search results are copied when ranked', () => {
  it('a delete that runs right after a worker scan does not change the record the scan returned', async () => {
    const db = new SimpleVectorDb({ scanThreads: 2, parallelScanThreshold: 0 });
    try {
      const target = await filled(db);
      const before = db.vectorIndex('docs')!.scanCounts.workers;
      const found = collect(db.getSimilarList('docs', target, { limit: 1, minRelevance: 0.5, withEmbeddings: true }));
      await untilWorkersScan(db, before);
      const deleted = db.delete('docs', { id: 'r5' });
      const [record, score] = (await found)[0]!;
      await deleted;
      expect(record.id).toBe('r5');
      expect(score).toBeCloseTo(1, 5);
      expect(Array.from(record.vector)).toEqual(Array.from(target));
      expect(record.tags).toEqual({ n: ['5'] });
    } finally {
      await db.close();
    }
  });

  it('an upsert that runs right after a worker scan does not swap in the new tags or vector', async () => {
    const db = new SimpleVectorDb({ scanThreads: 2, parallelScanThreshold: 0 });
    try {
      const target = await filled(db);
      const before = db.vectorIndex('docs')!.scanCounts.workers;
      const found = collect(db.getSimilarList('docs', target, { limit: 1, minRelevance: 0.5, withEmbeddings: true }));
      await untilWorkersScan(db, before);
      const moved = new Float32Array(DIMS).fill(1);
      const replaced = db.upsert('docs', { id: 'r5', vector: moved, tags: { changed: ['yes'] }, payload: { n: -1 } });
      const [record] = (await found)[0]!;
      await replaced;
      expect(record.id).toBe('r5');
      expect(Array.from(record.vector)).toEqual(Array.from(target));
      expect(record.tags).toEqual({ n: ['5'] });
      expect(record.payload).toEqual({ n: 5 });
    } finally {
      await db.close();
    }
  });
});
