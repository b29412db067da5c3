import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { describeMemoryDb } from '@km/conformance';
import { MemoryDb } from '@km/core';
import { SimpleVectorStoreDriver, VectorStoreMemoryDbDriver } from '@km/core/connector';
import { PostgresVectorStoreDriver } from '@km/memorydb-postgres';
import { afterAll } from 'vitest';
import { freshPglite } from '@km/memorydb-postgres/testing';

// KM's IMemoryDb as one record definition over a typed vector-store driver: a connector that
// writes a VectorStoreDriver gets the memory DB (pipeline, search, ask) without a second code path.
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-it-'));
  dirs.push(d);
  return d;
};

describeMemoryDb('MemoryDb over SimpleVectorStoreDriver (memory)', {
  create: () => new MemoryDb(new VectorStoreMemoryDbDriver(new SimpleVectorStoreDriver())),
  dispose: (db) => (db as MemoryDb).close(),
});
describeMemoryDb('MemoryDb over SimpleVectorStoreDriver (disk)', {
  create: async () =>
    new MemoryDb(new VectorStoreMemoryDbDriver(new SimpleVectorStoreDriver({ directory: await tempDir(), durable: false }))),
  dispose: (db) => (db as MemoryDb).close(),
});

// The same over the Postgres typed driver: PGlite in process, with pgvector, one database for
// the file (tests isolate themselves with random index names; starting PGlite takes a second).
let database: Promise<PGlite> | undefined;
afterAll(async () => {
  await (await database)?.close();
});
describeMemoryDb('MemoryDb over PostgresVectorStoreDriver (PGlite)', {
  create: async () => {
    database ??= freshPglite({ extensions: { vector } });
    return new MemoryDb(
      new VectorStoreMemoryDbDriver(new PostgresVectorStoreDriver({ pglite: await database, unlistedTablePrefix: false })),
    );
  },
  dispose: (db) => (db as MemoryDb).close(),
});
