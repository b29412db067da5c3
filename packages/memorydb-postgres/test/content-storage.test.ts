import { describeContentStorage } from '@km/conformance';
import { afterAll } from 'vitest';
import { PostgresContentStorage } from '../src/index.js';
import { NO_REAL_POSTGRES, realDatabaseOfFile } from './real-postgres.js';
import { freshPglite } from './fresh-pglite.js';

// Embedded PostgreSQL 17 in this process (no extension needed), and a real server when
// KM_TEST_POSTGRES_URL is set (a database of this file's own). tests-integration runs the same
// suite through `pg` over a socket, and its concurrency cases on the real server.
const pglite = freshPglite();
afterAll(async () => (await pglite).close());

// The large file spans 33 chunks of 64 KiB, or 4 of the default 1 MiB, the last one partial: its
// 8 MiB default took 8 s a suite in PGlite, which runs in WebAssembly (the real server keeps it).
describeContentStorage('postgres (PGlite in-process)', {
  // A small chunk size, so the suite's files span many chunks and ranges cross chunk borders.
  create: async () => new PostgresContentStorage({ pglite: await pglite, chunkBytes: 64 * 1024 }),
  largeFileBytes: 2 * 1024 * 1024 + 17,
});
describeContentStorage('postgres (PGlite in-process, default 1 MiB chunks, own prefix)', {
  create: async () => new PostgresContentStorage({ pglite: await pglite, tablePrefix: 'other_' }),
  largeFileBytes: 3 * 1024 * 1024 + 17,
});

const real = realDatabaseOfFile('the content storage conformance suite', { vector: false });
describeContentStorage('postgres (a real server, KM_TEST_POSTGRES_URL)', {
  skip: NO_REAL_POSTGRES,
  create: async () => new PostgresContentStorage({ pool: (await real()).pool, chunkBytes: 64 * 1024 }),
});
