import type { PGlite } from '@electric-sql/pglite';
import { describeMemoryDb } from '@km/conformance';
import { PostgresMemoryDb } from '../src/index.js';
import { NO_REAL_POSTGRES, realDatabaseOfFile } from './real-postgres.js';
import { freshPglite } from './fresh-pglite.js';

// Embedded PostgreSQL 17 + pgvector, in this process; and, when KM_TEST_POSTGRES_URL is set, a real
// server (in a database of this file's own, through `pg`). tests-integration runs the same suite
// through the `pg` driver over a socket to PGlite.
let pglite: Promise<PGlite> | undefined;
const database = () => (pglite ??= freshPglite());

describeMemoryDb('postgres (PGlite in-process)', {
  create: async () => new PostgresMemoryDb({ pglite: await database() }),
});

const real = realDatabaseOfFile('the memory DB conformance suite');
describeMemoryDb('postgres (a real server, KM_TEST_POSTGRES_URL)', {
  skip: NO_REAL_POSTGRES,
  create: async () => new PostgresMemoryDb({ pool: (await real()).pool }),
});
