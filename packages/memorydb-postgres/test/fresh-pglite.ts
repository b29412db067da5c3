import type { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { freshPglite as freshPgliteWith } from '../src/testing.js';

/** A new, empty in-process PostgreSQL with pgvector available (not created), started from a data folder initialised once per test worker. */
export const freshPglite = (): Promise<PGlite> => freshPgliteWith({ extensions: { vector } });
