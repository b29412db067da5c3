import { PGlite } from '@electric-sql/pglite';
import { describeContentStorage } from '@km/conformance';
import { afterAll } from 'vitest';
import { PostgresContentStorage } from '../src/index.js';

// Embedded PostgreSQL 17 in this process (no extension needed). tests-integration runs the same
// suite through `pg` over a socket, and against KM_TEST_POSTGRES_URL when set.
const pglite = PGlite.create();
afterAll(async () => (await pglite).close());

describeContentStorage('postgres (PGlite in-process)', {
  // A small chunk size, so the suite's files span many chunks and ranges cross chunk borders.
  create: async () => new PostgresContentStorage({ pglite: await pglite, chunkBytes: 64 * 1024 }),
});
describeContentStorage('postgres (PGlite in-process, default 1 MiB chunks, own prefix)', {
  create: async () => new PostgresContentStorage({ pglite: await pglite, tablePrefix: 'other_' }),
});
