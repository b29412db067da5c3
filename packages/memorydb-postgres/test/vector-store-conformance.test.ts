import type { PGlite } from '@electric-sql/pglite';
import { defineRecord } from '@km/core';
import { describeVectorStore } from '@km/conformance';
import { PostgresVectorStore } from '../src/index.js';
import { NO_REAL_POSTGRES, realDatabaseOfFile } from './real-postgres.js';
import { freshPglite } from './fresh-pglite.js';

// Embedded PostgreSQL 17 + pgvector 0.8, in this process (vector-store-conformance-tcp runs it through
// pg); and a real server when KM_TEST_POSTGRES_URL is set, in a database of this file's own.
let pglite: Promise<PGlite> | undefined;
const database = () => (pglite ??= freshPglite());
const logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A table made by its own CREATE TABLE: other column names, a bigint key, a `real` column (the suite's i + 0.5 ratings are exact in it). */
const Hotel = defineRecord({
  key: { name: 'hotelId', type: 'integer', storageName: 'hotel_id' },
  data: {
    name: { type: 'string', filterable: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true, storageName: 'stars' },
    tags: { type: 'string[]', filterable: true, storageName: 'labels' },
    description: { type: 'string', storageName: 'about' },
  },
  vectors: { embedding: { dimensions: 8, distance: 'dot', storageName: 'about_vec' } },
});

describeVectorStore({
  name: 'postgres (PGlite in-process)',
  createStore: async () => new PostgresVectorStore({ pglite: await database(), logger }),
  existingSchema: {
    definition: Hotel,
    create: async (collection) => {
      const db = await database();
      await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
      await db.exec(
        `CREATE TABLE "${collection}" (hotel_id bigint PRIMARY KEY, hotel_name text NOT NULL, stars real, labels text[], about text, about_vec vector(8))`,
      );
    },
  },
});

const real = realDatabaseOfFile('the typed vector store conformance suite');
describeVectorStore({
  name: 'postgres (a real server, KM_TEST_POSTGRES_URL)',
  skip: NO_REAL_POSTGRES,
  createStore: async () => new PostgresVectorStore({ pool: (await real()).pool, logger }),
  existingSchema: {
    definition: Hotel,
    create: async (collection) => {
      await (await real()).pool.query(
        `CREATE TABLE "${collection}" (hotel_id bigint PRIMARY KEY, hotel_name text NOT NULL, stars real, labels text[], about text, about_vec vector(8))`,
      );
    },
  },
});
