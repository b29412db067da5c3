// @km/memorydb-postgres on PGlite (PostgreSQL 17 + pgvector 0.8 compiled to WASM):
// - batch upsert of N x 384 records against N one-by-one upserts, in process and through the
//   `pg` driver over a local socket (where each statement is a network round trip);
// - top-10 search p50 on N records with and without the HNSW index (built after the load).
// Prints one `name value unit` line per figure. BENCH_PG_N sets N (default 10000).
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PostgresMemoryDb } from '@km/memorydb-postgres';
import pg from 'pg';

const N = Number(process.env.BENCH_PG_N ?? 10_000);
const DIMS = 384;
const RUNS = 50;

let seed = 7;
const random = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const randomVector = () => Array.from({ length: DIMS }, random);
const records = Array.from({ length: N }, (_, i) => ({
  id: `d=doc${i % 500}//p=${i}`,
  vector: randomVector(),
  tags: { g: [String(i % 100)], __document_id: [`doc${i % 500}`] },
  payload: { text: `partition ${i}` },
}));
const queries = Array.from({ length: RUNS }, randomVector);
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const print = (name, value, unit) => console.log(`${name} ${+value.toFixed(3)} ${unit}`);
const collect = async (it) => {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
};
const timed = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const searchP50 = async (db, index) => {
  for (let i = 0; i < 5; i++) await collect(db.getSimilarList(index, queries[i], { limit: 10, minRelevance: -1 }));
  const times = [];
  for (const q of queries) {
    const t = performance.now();
    const hits = await collect(db.getSimilarList(index, q, { limit: 10, minRelevance: -1 }));
    times.push(performance.now() - t);
    if (hits.length !== 10) throw new Error(`expected 10 hits, got ${hits.length}`);
  }
  return percentile(times, 50);
};
const loadBoth = async (db, label) => {
  await db.createIndex(`${label}-batch`, DIMS);
  await db.createIndex(`${label}-single`, DIMS);
  const batchMs = await timed(() => db.upsertBatch(`${label}-batch`, records));
  const singleMs = await timed(async () => {
    for (const r of records) await db.upsert(`${label}-single`, r);
  });
  print(`${label}_batch_upsert`, batchMs, `ms for ${N}`);
  print(`${label}_one_by_one_upsert`, singleMs, `ms for ${N}`);
  print(`${label}_batch_vs_one_by_one`, singleMs / batchMs, 'x');
};

const pglite = await PGlite.create({ extensions: { vector } });
// Tables without HNSW while loading (as pgvector advises for bulk loads); the index comes after.
const inProcess = new PostgresMemoryDb({ pglite, createVectorIndex: false });
await loadBoth(inProcess, 'pglite');

const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0 });
await server.start();
const [host, port] = server.getServerConn().split(':');
const pool = new pg.Pool({ host, port: Number(port), user: 'postgres', database: 'postgres', max: 1 });
const overSocket = new PostgresMemoryDb({ pool, createVectorIndex: false });
await loadBoth(overSocket, 'socket');

const exactP50 = await searchP50(inProcess, 'pglite-batch');
const buildMs = await timed(() =>
  pglite.exec(`CREATE INDEX ON "public"."km-pglite-batch" USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)`),
);
const hnswP50 = await searchP50(inProcess, 'pglite-batch');
print('hnsw_build_after_load', buildMs, `ms for ${N}`);
print('search_top10_exact_scan_p50', exactP50, 'ms');
print('search_top10_hnsw_p50', hnswP50, 'ms');
print('hnsw_vs_exact', exactP50 / hnswP50, 'x faster');

await pool.end();
await server.stop();
await pglite.close();
