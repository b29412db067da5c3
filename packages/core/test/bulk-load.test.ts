import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordLog, type LogEntry } from '../src/memory-storage/record-log.js';
import { ScanPool } from '../src/memory-storage/scan-pool.js';
import { createIndexFolder, readIndexFolder } from '../src/memory-storage/simple-vector-db-index.js';
import type { VectorIndexOptions } from '../src/memory-storage/vector-index.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-bulk-load-');
const pools: ScanPool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.close();
});
const newPool = () => {
  const pool = new ScanPool(2);
  pools.push(pool);
  return pool;
};

/** Seeded uniform numbers in [-0.5, 0.5). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

const DIMS = 37; // not a multiple of 4: rows carry padding
const upsert = (id: string, vector: Float32Array, n: number): LogEntry => ({
  op: 'upsert',
  record: { id, tags: { g: [String(n % 5)] }, payloadJson: JSON.stringify({ text: `record ${n}` }) },
  vector,
});

/**
 * A log with new records, zero and negative-zero vectors, replacements of records written
 * earlier (some still in flight in the bulk's batches), deletes, and records written again after
 * their delete: every path of a load.
 */
async function writeLog(folder: string): Promise<Set<string>> {
  const random = seeded(11);
  const entries: LogEntry[] = [];
  const ids = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const vector = Float32Array.from({ length: DIMS }, random);
    if (i === 7) vector.fill(0);
    if (i === 8) vector.fill(-0);
    entries.push(upsert(`r${i}`, vector, i));
    ids.add(`r${i}`);
    if (i % 450 === 449) {
      entries.push(upsert(`r${i - 3}`, Float32Array.from({ length: DIMS }, random), i)); // just written: in flight
      entries.push(upsert(`r${i - 400}`, Float32Array.from({ length: DIMS }, random), i));
      entries.push({ op: 'delete', id: `r${i - 10}` });
      ids.delete(`r${i - 10}`);
    }
    if (i === 2500) {
      entries.push(upsert('r439', Float32Array.from({ length: DIMS }, random), i)); // deleted at 449, back
      ids.add('r439');
    }
  }
  await createIndexFolder(folder, DIMS, false);
  const log = new RecordLog(folder, false);
  await log.append(entries);
  await log.close();
  return ids;
}

describe('bulk load: rows finished on a scan thread', () => {
  for (const quantization of ['int8', 'none'] as const) {
    it(`leaves rows, norms${quantization === 'int8' ? ', codes and scales' : ''} bit for bit as a load on one thread (${quantization})`, async () => {
      const folder = join(await tempDir(), 'idx');
      const ids = await writeLog(folder);
      const common: VectorIndexOptions = { quantization, segmentRows: 700 }; // several segments
      const plain = await readIndexFolder(folder, false, false, common);
      const pool = newPool();
      const bulk = await readIndexFolder(folder, false, false, { ...common, scan: { pool, threshold: 2 ** 40 }, bulkLoadFromBytes: 0 });
      expect(pool.tasksRun).toBeGreaterThan(3); // the rows went to the pool in batches
      expect(bulk!.vectors.size).toBe(ids.size);
      expect(plain!.vectors.size).toBe(ids.size);
      for (const id of ids) {
        const a = plain!.vectors.storedRow(id)!;
        const b = bulk!.vectors.storedRow(id)!;
        expect(Object.is(b.norm, a.norm), `${id} norm`).toBe(true);
        expect(new Uint32Array(b.floats.buffer)).toEqual(new Uint32Array(a.floats.buffer));
        expect(b.codes).toEqual(a.codes);
        expect(Object.is(b.scale, a.scale), `${id} scale`).toBe(true);
      }
      expect(bulk!.vectors.codeScales).toEqual(plain!.vectors.codeScales);
      const query = Float32Array.from({ length: DIMS }, seeded(5));
      const search = { minRelevance: -1, limit: 20 };
      expect(await bulk!.vectors.search(query, search)).toEqual(await plain!.vectors.search(query, search));
    });
  }

  it('rejects the load when the rows cannot be finished (the pool is closed), with no unhandled rejection', async () => {
    const folder = join(await tempDir(), 'idx');
    await writeLog(folder);
    const pool = newPool();
    await pool.close();
    const load = readIndexFolder(folder, false, false, { scan: { pool, threshold: 2 ** 40 }, bulkLoadFromBytes: 0 });
    await expect(load).rejects.toMatchObject({ code: 'aborted' });
  });
});
