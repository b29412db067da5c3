import type { PGlite } from '@electric-sql/pglite';
import { isKmError, type Logger, type MemoryRecord } from '@km/core';
import { collect } from '@km/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb, postgresMemoryDbFactory } from '../src/index.js';
import { startPgliteServer } from '../src/testing.js';
import { NO_REAL_POSTGRES, realDatabaseOfFile } from './real-postgres.js';
import { type SqlBackend, sqlBackends } from './sql-backends.js';
import { freshPglite } from './fresh-pglite.js';

let pglite: PGlite;
const logs: string[] = [];
const logger: Logger = { debug() {}, info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) };
let counter = 0;
const fresh = () => `bulk-${++counter}`;

beforeAll(async () => {
  pglite = await freshPglite();
});
afterAll(async () => pglite.close());

const real = realDatabaseOfFile('bulk import, upgrades and halfvec');
const backends = sqlBackends(() => pglite, real);

function* records(n: number, dimensions = 3, from = 0): Iterable<MemoryRecord> {
  for (let i = from; i < from + n; i++) {
    const v = Array.from({ length: dimensions }, (_, d) => (d === i % dimensions ? 1 : 0.1));
    yield { id: `r${i}`, vector: v, tags: { n: [String(i % 3)] }, payload: { text: `record number ${i} about harbours` } };
  }
}

for (const [name, skip, open] of backends) {
  describe.skipIf(skip)(`on ${name}`, () => {
    let backend: SqlBackend;
    beforeAll(async () => {
      backend = await open();
    });
    const dbOf = () => new PostgresMemoryDb({ ...backend.connection, logger });
    /** The index definitions of a table, as PostgreSQL prints them. */
    const indexDefinitions = async (table: string): Promise<string[]> =>
      (
        await backend.query<{ def: string }>('SELECT indexdef AS def FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [table])
      ).rows.map((r) => r.def);
    const hnswOf = async (table: string) => (await indexDefinitions(table)).filter((d) => d.includes('USING hnsw'));

    describe('PostgresMemoryDb.bulkImport', () => {
      it('creates the index, loads in batches without the HNSW index, then builds it and analyses the table', async () => {
        const db = dbOf();
        const index = fresh();
        const progress: number[] = [];
        const duringLoad: Array<Promise<string[]>> = [];
        const report = await db.bulkImport(index, records(250), {
          batchSize: 100,
          onProgress: (n) => {
            progress.push(n);
            duringLoad.push(hnswOf(`km-${index}`));
          },
        });
        expect(report.records).toBe(250);
        expect(progress).toEqual([100, 200, 250]);
        expect(await Promise.all(duringLoad)).toEqual([[], [], []]);
        expect(report.recordsPerSecond).toBeGreaterThan(0);
        expect(await hnswOf(`km-${index}`)).toHaveLength(1);
        const { rows } = await backend.query<{ n: number }>('SELECT reltuples::int AS n FROM pg_class WHERE relname = $1', [`km-${index}`]);
        expect(rows[0]!.n).toBe(250); // analysed
        expect((await collect(db.getList(index, {}))).length).toBe(250);
        const [[best]] = (await collect(db.getSimilarList(index, [0, 1, 0], { limit: 1 }))) as [[MemoryRecord, number]];
        expect(best.id).toMatch(/^r\d+$/);
        expect(best.payload).toEqual({ text: expect.stringContaining('harbours') });
      });

      it('takes an async iterable and appends to an existing index of the same vector size', async () => {
        const db = dbOf();
        const index = fresh();
        await db.bulkImport(index, records(10));
        async function* more() {
          yield* records(5, 3, 10);
        }
        expect((await db.bulkImport(index, more())).records).toBe(5);
        expect((await collect(db.getList(index, {}))).length).toBe(15);
      });

      it('a bad record fails the import with its error, keeps the batches already loaded, and the HNSW index is built anyway', async () => {
        const db = dbOf();
        const index = fresh();
        function* broken(): Iterable<MemoryRecord> {
          yield* records(20);
          yield { id: 'wrong-size', vector: [1, 0], tags: {}, payload: {} };
        }
        await expect(db.bulkImport(index, broken(), { batchSize: 10 })).rejects.toSatisfy((e) => isKmError(e, 'vector_size_mismatch'));
        expect((await collect(db.getList(index, {}))).length).toBe(20);
        expect(await hnswOf(`km-${index}`)).toHaveLength(1);
      });

      it('takes the index name as every other call does (normalised), and bulkImport and upgradeTables find it', async () => {
        const db = dbOf();
        const name = `Mixed ${fresh()}`;
        expect((await db.bulkImport(name, records(12))).records).toBe(12);
        expect((await collect(db.getList(name, {}))).length).toBe(12);
        const [upgrade] = await db.upgradeTables([name]);
        expect(upgrade?.created).toEqual([]);
        expect(upgrade?.index).toBe(name.toLowerCase().replace(' ', '-'));
      });

      it('leaves a table made without HNSW (createVectorIndex: false) without it, and only rebuilds what it dropped', async () => {
        const db = new PostgresMemoryDb({ ...backend.connection, logger, createVectorIndex: false });
        const index = fresh();
        await db.bulkImport(index, records(30));
        expect(await hnswOf(`km-${index}`)).toEqual([]);
        expect((await collect(db.getList(index, {}))).length).toBe(30);
      });

      it('refuses a malformed maintenanceWorkMem or batchSize before touching the table', async () => {
        const db = dbOf();
        const index = fresh();
        await db.createIndex(index, 3);
        await expect(db.upgradeTables([index], { maintenanceWorkMem: "1GB'; DROP TABLE x; --" })).rejects.toSatisfy((e) =>
          isKmError(e, 'invalid_argument'),
        );
        for (const options of [{ maintenanceWorkMem: 'lots' }, { batchSize: 0 }, { batchSize: Number.NaN }, { batchSize: 2.5 }]) {
          await expect(db.bulkImport(index, records(5), options), JSON.stringify(options)).rejects.toSatisfy((e) =>
            isKmError(e, 'invalid_argument'),
          );
        }
        expect(await collect(db.getList(index, {}))).toEqual([]);
        expect(await hnswOf(`km-${index}`)).toHaveLength(1);
      });
    });

    describe('PostgresMemoryDb.upgradeTables', () => {
      /** A table as an earlier version left it: no HNSW, no tags GIN index, no full-text column. */
      async function olderTable(index: string): Promise<void> {
        await backend.exec(`CREATE TABLE "km-${index}" (id TEXT PRIMARY KEY, embedding vector(3) NOT NULL, tags TEXT[] NOT NULL DEFAULT '{}',
      payload JSONB NOT NULL DEFAULT '{}', content TEXT NOT NULL DEFAULT '');
      INSERT INTO "km-${index}" VALUES ('old', '[1,0,0]', '{"k:v"}', '{"text":"lighthouse keeper"}', 'lighthouse keeper')`);
      }

      it('gives a table from an earlier version the tags GIN index, the full-text column and the HNSW index, once', async () => {
        const db = dbOf();
        const index = fresh();
        await olderTable(index);
        expect(await collect(db.getSimilarList(index, 'lighthouse', { mode: 'lexical' }))).toEqual([]); // no column yet
        const [upgrade] = await db.upgradeTables([index]);
        expect(upgrade).toEqual({
          index,
          table: `km-${index}`,
          created: ['GIN index on tags', 'full-text column content_tsv (GIN-indexed)', 'HNSW index on embedding'],
        });
        // Analysed after: the new column has the statistics lexical search reads on large tables.
        const stats = await backend.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stats WHERE tablename = $1 AND attname = 'content_tsv'",
          [`km-${index}`],
        );
        expect(stats.rows[0]!.n).toBe(1);
        expect(await db.upgradeTables([index])).toEqual([{ index, table: `km-${index}`, created: [] }]);
        const found = await collect(dbOf().getSimilarList(index, 'lighthouse', { mode: 'lexical' }));
        expect(found.map(([r]) => r.id)).toEqual(['old']);
      });

      it('counts an index of another name on the same column as present, and upgrades every km table when no index is named', async () => {
        const db = dbOf();
        const index = fresh();
        await olderTable(index);
        await backend.exec(`CREATE INDEX my_own_hnsw ON "km-${index}" USING hnsw (embedding vector_cosine_ops)`);
        const upgrades = await db.upgradeTables();
        const mine = upgrades.find((u) => u.index === index);
        expect(mine?.created).toEqual(['GIN index on tags', 'full-text column content_tsv (GIN-indexed)']);
        expect(await hnswOf(`km-${index}`)).toEqual([expect.stringContaining('my_own_hnsw')]);
      });

      it('names a missing index with index_not_found', async () => {
        const db = dbOf();
        await expect(db.upgradeTables(['never-created'])).rejects.toSatisfy((e) => isKmError(e, 'index_not_found'));
      });
    });

    describe('vectors of 2001 to 4000 dimensions', () => {
      it('get an HNSW index on their halfvec cast, are found through it, and keep their exact cosine similarity', async () => {
        const db = dbOf();
        const index = fresh();
        const size = 3072;
        const unit = (hot: number) => Array.from({ length: size }, (_, d) => (d === hot ? 1 : 0));
        await db.createIndex(index, size);
        await db.upsertBatch(
          index,
          [0, 1, 2].map((hot) => ({ id: `v${hot}`, vector: unit(hot), tags: {}, payload: {} })),
        );
        expect(await hnswOf(`km-${index}`)).toEqual([
          expect.stringMatching(/USING hnsw \(\(\(embedding\)::halfvec\(3072\)\) halfvec_cosine_ops\)/),
        ]);
        const query = unit(1).map((x, d) => (d === 0 ? 0.5 : x));
        const hits = await collect(db.getSimilarList(index, query, { limit: 2, minRelevance: -1 }));
        expect(hits.map(([r]) => r.id)).toEqual(['v1', 'v0']);
        expect(hits[0]![1]).toBeCloseTo(1 / Math.sqrt(1.25), 10);
      });
    });
  });
}

describe.skipIf(NO_REAL_POSTGRES)('long maintenance statements on a pool made from connectionString (real server)', () => {
  it('builds the HNSW index past queryTimeoutMs, which bounds every other query (a build was rolled back at the timeout)', async () => {
    const { url } = await real();
    const db = new PostgresMemoryDb({ connectionString: url, queryTimeoutMs: 50, logger });
    const index = fresh();
    try {
      await db.createIndex(index, 64);
      const pool = (await real()).pool;
      await pool.query(
        `INSERT INTO "km-${index}" (id, embedding, tags, payload, content)
         SELECT 'g' || i, (SELECT array_agg(sin(i * d)::real) FROM generate_series(1, 64) AS d)::vector, '{}', '{}', ''
         FROM generate_series(1, 4000) AS i`,
      );
      await expect(db.upgradeTables([index])).resolves.toBeDefined(); // nothing missing: quick
      await pool.query(`DROP INDEX ${(await hnswNames(pool, `km-${index}`)).map((n) => `"${n}"`).join(', ')}`);
      // The build (about a second for 4,000 vectors) runs on a connection without the 50 ms timeout.
      const [upgrade] = await db.upgradeTables([index]);
      expect(upgrade?.created).toEqual(['HNSW index on embedding']);
      expect(await hnswNames(pool, `km-${index}`)).toHaveLength(1);
    } finally {
      await db.close();
    }
  });
});

async function hnswNames(pool: { query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }> }, table: string): Promise<string[]> {
  const { rows } = await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%USING hnsw%'`, [table]);
  return (rows as Array<{ indexname: string }>).map((r) => r.indexname);
}

/** The HNSW index definitions of a table in the in-process PGlite. */
async function pgliteHnswOf(table: string): Promise<string[]> {
  const { rows } = await pglite.query<{ def: string }>('SELECT indexdef AS def FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [
    table,
  ]);
  return rows.map((r) => r.def).filter((d) => d.includes('USING hnsw'));
}

describe('postgresMemoryDbFactory: the HNSW, search and upgrade settings', () => {
  const base = { postgresUrl: 'postgres://u:p@127.0.0.1:1/km', postgresMaxConnections: 1 };

  it('refuses settings out of range with invalid_argument naming them', async () => {
    for (const [settings, named] of [
      [{ postgresIterativeScan: 'sometimes' }, 'KM_POSTGRES_ITERATIVE_SCAN'],
      [{ postgresVectorIndex: 'later' }, 'KM_POSTGRES_VECTOR_INDEX'],
      [{ postgresUpgradeTables: 'yes please' }, 'KM_POSTGRES_UPGRADE_TABLES'],
      [{ postgresHnswM: 200 }, 'hnsw.m'],
      [{ postgresHnswM: 16, postgresHnswEfConstruction: 20 }, 'hnsw.efConstruction'],
      [{ postgresLexicalCandidates: 1000.5 }, 'lexicalCandidates'],
    ] as const) {
      await expect(postgresMemoryDbFactory.create({ ...base, ...settings }, { logger })).rejects.toSatisfy(
        (e) => isKmError(e, 'invalid_argument') && (e as Error).message.includes(named),
      );
    }
  });

  it('KM_POSTGRES_VECTOR_INDEX=defer makes tables without HNSW; KM_POSTGRES_UPGRADE_TABLES=true builds it at start, in the background', async () => {
    const server = await startPgliteServer(pglite as never);
    const settings = { postgresUrl: server.url, postgresMaxConnections: 1, postgresHnswM: 8, postgresHnswEfConstruction: 32 };
    const index = fresh();
    try {
      const deferred = (await postgresMemoryDbFactory.create(
        { ...settings, postgresVectorIndex: 'defer' },
        { logger },
      )) as PostgresMemoryDb;
      await deferred.createIndex(index, 3);
      await deferred.close();
      expect(await pgliteHnswOf(`km-${index}`)).toEqual([]);
      const upgrading = (await postgresMemoryDbFactory.create(
        { ...settings, postgresUpgradeTables: 'true' },
        { logger },
      )) as PostgresMemoryDb;
      await expect
        .poll(() => pgliteHnswOf(`km-${index}`), { timeout: 10_000 })
        .toEqual([expect.stringContaining("WITH (m='8', ef_construction='32')")]);
      await expect.poll(() => logs.some((m) => m.includes(`upgraded km-${index}: HNSW index on embedding`)), { timeout: 5_000 }).toBe(true);
      await upgrading.close();
    } finally {
      await server.stop();
    }
  });
});
