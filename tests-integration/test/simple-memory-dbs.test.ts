import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMemoryDb } from '@km/conformance';
import { SimpleTextDb, SimpleVectorDb } from '@km/core';
import { afterAll } from 'vitest';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-it-'));
  dirs.push(d);
  return d;
};

describeMemoryDb('SimpleVectorDb (volatile)', { create: () => new SimpleVectorDb() });
describeMemoryDb('SimpleVectorDb (disk)', {
  create: async () => new SimpleVectorDb({ directory: await tempDir(), durable: false }),
  dispose: (db) => (db as SimpleVectorDb).close(),
});
describeMemoryDb('SimpleVectorDb (int8)', { create: () => new SimpleVectorDb({ quantization: 'int8' }) });
describeMemoryDb('SimpleVectorDb (int8, disk)', {
  create: async () => new SimpleVectorDb({ directory: await tempDir(), durable: false, quantization: 'int8' }),
  dispose: (db) => (db as SimpleVectorDb).close(),
});
// Threshold 0: every search, however small the index, is scanned on the worker threads.
describeMemoryDb('SimpleVectorDb (2 scan threads)', {
  create: () => new SimpleVectorDb({ scanThreads: 2, parallelScanThreshold: 0 }),
  dispose: (db) => (db as SimpleVectorDb).close(),
});
describeMemoryDb('SimpleVectorDb (2 scan threads, int8, disk)', {
  create: async () =>
    new SimpleVectorDb({ directory: await tempDir(), durable: false, quantization: 'int8', scanThreads: 2, parallelScanThreshold: 0 }),
  dispose: (db) => (db as SimpleVectorDb).close(),
});
// minRecords 0: every search goes through the HNSW graph (exact in practice on this little data).
describeMemoryDb('SimpleVectorDb (hnsw)', {
  create: () => new SimpleVectorDb({ hnsw: { minRecords: 0 } }),
  dispose: (db) => (db as SimpleVectorDb).close(),
});
describeMemoryDb('SimpleVectorDb (hnsw, disk)', {
  create: async () => new SimpleVectorDb({ directory: await tempDir(), durable: false, hnsw: { minRecords: 0 } }),
  dispose: (db) => (db as SimpleVectorDb).close(),
});
// exactBelow 0: filters too are applied during the graph search.
describeMemoryDb('SimpleVectorDb (hnsw, filters in the graph)', {
  create: () => new SimpleVectorDb({ hnsw: { minRecords: 0, exactBelow: 0 } }),
  dispose: (db) => (db as SimpleVectorDb).close(),
});
describeMemoryDb('SimpleTextDb (volatile)', {
  create: () => new SimpleTextDb(),
});
describeMemoryDb('SimpleTextDb (disk)', {
  create: async () => new SimpleTextDb({ directory: await tempDir(), durable: false }),
  dispose: (db) => (db as SimpleTextDb).close(),
});
