// The real PostgreSQL + pgvector server of KM_TEST_POSTGRES_URL, a database of its own per suite:
// the one helper of the memorydb-postgres tests (packages/memorydb-postgres/test/real-postgres.ts).
export {
  createRealDatabase,
  NO_REAL_POSTGRES,
  REAL_POSTGRES_URL,
  type RealDatabase,
  realDatabaseOfFile,
} from '../../packages/memorydb-postgres/test/real-postgres.js';
