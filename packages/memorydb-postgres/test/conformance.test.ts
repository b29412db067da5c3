import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { describeMemoryDb } from '@km/conformance';
import { PostgresMemoryDb } from '../src/index.js';

// Embedded PostgreSQL 17 + pgvector, in this process. tests-integration runs the same suite
// through the `pg` driver over a socket, and against KM_TEST_POSTGRES_URL when set.
let pglite: Promise<PGlite> | undefined;
const database = () => (pglite ??= PGlite.create({ extensions: { vector } }));

describeMemoryDb('postgres (PGlite in-process)', {
  create: async () => new PostgresMemoryDb({ pglite: await database() }),
});
