import type { PGlite } from '@electric-sql/pglite';
import { defineRecord } from '@km/core';
import { describeVectorStore } from '@km/conformance';
import { afterAll, beforeAll } from 'vitest';
import { PostgresVectorStore } from '../src/index.js';
import { startPgliteServer, type PgliteServer } from '../src/testing.js';
import { freshPglite } from './fresh-pglite.js';

// The same suite through the `pg` driver over TCP (PGlite served by startPgliteServer): pg's
// own value parsing (bigint and numeric as text, dates, arrays) and a pool per store.
let pglite: PGlite;
let server: PgliteServer;
beforeAll(async () => {
  pglite = await freshPglite();
  server = await startPgliteServer(pglite);
});
afterAll(async () => {
  await server.stop();
  await pglite.close();
});
const logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A table made by its own CREATE TABLE: other column names, a uuid key, a numeric column read back as text by pg. */
const Room = defineRecord({
  key: { name: 'roomId', type: 'uuid', storageName: 'room_uuid' },
  data: {
    floor: { type: 'integer', filterable: true, storageName: 'floor_no' },
    price: { type: 'number', filterable: true, storageName: 'price_eur' },
    opened: { type: 'date', filterable: true, storageName: 'opened_at' },
  },
  vectors: { look: { dimensions: 5, distance: 'euclidean', storageName: 'look_vec' } },
});

describeVectorStore({
  name: 'postgres (pg over TCP to PGlite)',
  createStore: async () => new PostgresVectorStore({ connectionString: server.url, maxConnections: 2, logger }),
  existingSchema: {
    definition: Room,
    create: async (collection) => {
      await pglite.exec('CREATE EXTENSION IF NOT EXISTS vector');
      await pglite.exec(
        `CREATE TABLE "${collection}" (room_uuid uuid PRIMARY KEY, floor_no integer, price_eur numeric(10, 2), opened_at timestamptz, look_vec vector(5))`,
      );
    },
  },
});
