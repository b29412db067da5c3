// Paging through an index's documents (issue 37): 10,000 documents in one index, their pipeline
// states (small JSON, one uploaded file each) written through the content storage as core's
// PipelineStatusStore writes them, then every page of 100 read with core's listDocumentPage (what
// `memory.listDocuments` and `GET /documents` run). For each storage it prints p50/p95 ms per page
// and the total, and the p95 of a filtered listing (a tag 1% of the documents hold, pages of up
// to 2,000 states read each); beside them, in the same run, the naive way: `listDocuments(index)`
// and every state read for each page (sampled on a page or two, its total extrapolated). On
// PGlite (one connection, every read in turn) the filtered listing and the naive peer are left
// out unless BENCH_LISTING_FULL=1, to keep the run near two minutes.
// Storages: core's DiskContentStorage (no listDocumentsAfter: ids listed once per page), the
// Postgres content storage on PGlite in process and on a real server (KM_BENCH_POSTGRES_URL, in
// tables of its own, dropped after; skipped with one line without it), both with
// listDocumentsAfter. Floor: p95 < 100 ms per page on the built-in (disk) store.
//
//   KM_BENCH_POSTGRES_URL=postgres://km:km@127.0.0.1:5433/km pnpm --filter @km/bench bench:document-listing
//   (BENCH_LISTING_DOCS=10000, BENCH_LISTING_FULL=1)
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { DiskContentStorage, listDocumentPage, MemoryFilters, PIPELINE_STATUS_FILE } from '@km/core';
import { PipelineStatusStore } from '@km/core/connector';
import { PostgresContentStorage } from '@km/memorydb-postgres';
import pg from 'pg';
import { percentile } from './lib/metrics.mjs';

const DOCUMENTS = Number(process.env.BENCH_LISTING_DOCS ?? 10_000);
const PAGE = 100;
const FULL = process.env.BENCH_LISTING_FULL === '1';
const WRITES_AT_ONCE = 16;
const FLOOR_MS = 100;
const INDEX = 'listing';
/** One document in a hundred holds it. */
const RARE_TAG = MemoryFilters.byTag('group', 'g07');

const print = (name, value, unit) => console.log(`${name} ${typeof value === 'number' ? +value.toFixed(2) : value} ${unit}`);

/** The pipeline state of a completed document with one uploaded file, as core saves it. */
function stateOf(i) {
  const id = `doc-${String(i).padStart(6, '0')}`;
  const time = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const steps = ['extract', 'partition', 'gen_embeddings', 'save_records'];
  const file = {
    id: `f${i}`,
    name: `report-${i}.txt`,
    size: 1000 + (i % 500),
    mime_type: 'text/plain',
    artifact_type: 'uploaded_file',
    partition_number: 0,
    section_number: 0,
    tags: {},
    processed_by: steps,
    log: [],
    generated_files: {},
  };
  return {
    index: INDEX,
    document_id: id,
    execution_id: `e${i}`,
    steps,
    remaining_steps: [],
    completed_steps: steps,
    tags: { group: [`g${String(i % 100).padStart(2, '0')}`], user: [`u${i % 7}`] },
    creation: time,
    last_update: time,
    files: [file],
    args: {},
    previous_executions_to_purge: [],
    failed: false,
  };
}

/** Writes the states of every document, a few at a time. */
async function seed(storage) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < DOCUMENTS; i = next++) {
      const state = stateOf(i);
      await storage.writeFile(INDEX, state.document_id, PIPELINE_STATUS_FILE, JSON.stringify(state, null, 1));
    }
  };
  await Promise.all(Array.from({ length: WRITES_AT_ONCE }, worker));
}

/** Every page of a listing, timed one by one; checks that each document came once. */
async function pageThrough(storage, options, expected) {
  const store = new PipelineStatusStore(storage);
  const times = [];
  let cursor;
  let seen = 0;
  const started = performance.now();
  do {
    const t = performance.now();
    const page = await listDocumentPage(storage, store, INDEX, { limit: PAGE, ...options, ...(cursor ? { cursor } : {}) });
    times.push(performance.now() - t);
    seen += page.documents.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  if (seen !== expected) throw new Error(`listed ${seen} documents, expected ${expected}`);
  return { p50: percentile(times, 50), p95: percentile(times, 95), total: performance.now() - started, pages: times.length };
}

/** The naive page: every id listed, every state read (16 at a time), then the page cut out. */
async function naivePage(storage, store, pageNumber) {
  const ids = [...(await storage.listDocuments(INDEX))].sort();
  const states = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ids.length; i = next++) states[i] = await store.read(INDEX, ids[i]);
  };
  await Promise.all(Array.from({ length: WRITES_AT_ONCE }, worker));
  return states.slice(pageNumber * PAGE, (pageNumber + 1) * PAGE);
}

/** The naive way on `pages` pages: their median time, and the total of every page extrapolated from it. */
async function naive(storage, pages) {
  const store = new PipelineStatusStore(storage);
  const times = [];
  for (let p = 0; p < pages; p++) {
    const t = performance.now();
    await naivePage(storage, store, p);
    times.push(performance.now() - t);
  }
  const median = percentile(times, 50);
  return { median, total: median * Math.ceil(DOCUMENTS / PAGE) };
}

/** Prints a storage's figures: every page, the filtered listing and the naive peer on `naivePages` pages (each left out when false); returns the unfiltered page p95. */
async function measure(label, storage, { filtered = true, naivePages = 1 } = {}) {
  await listDocumentPage(storage, new PipelineStatusStore(storage), INDEX, { limit: PAGE }); // warm-up
  const all = await pageThrough(storage, {}, DOCUMENTS);
  print(`${label}_page_p50`, all.p50, 'ms');
  print(`${label}_page_p95`, all.p95, 'ms');
  print(`${label}_all_${all.pages}_pages_total`, all.total, 'ms');
  if (filtered) {
    const rare = await pageThrough(storage, { filters: [RARE_TAG] }, DOCUMENTS / 100);
    print(
      `${label}_filtered_1pct_page_p95`,
      rare.p95,
      `ms (${rare.pages} pages of up to 2000 states read, total ${rare.total.toFixed(0)} ms)`,
    );
  }
  if (naivePages) {
    const peer = await naive(storage, naivePages);
    print(`${label}_naive_page`, peer.median, `ms (listDocuments + every state read; median of ${naivePages} pages)`);
    print(`${label}_naive_all_pages_total_est`, peer.total, 'ms');
  }
  return all.p95;
}

const url = process.env.KM_BENCH_POSTGRES_URL;
const directory = await mkdtemp(join(tmpdir(), 'km-bench-listing-'));
const pglite = await PGlite.create();
const pool = url ? new pg.Pool({ connectionString: url, max: WRITES_AT_ONCE }) : undefined;
const prefix = `km_bench_listing_${randomBytes(4).toString('hex')}_`;
/** Each storage, and how much of it is measured. Not fsynced on disk: only reads are measured. */
const storages = [
  { label: 'disk', storage: new DiskContentStorage({ directory, durable: false }), options: { naivePages: 2 } },
  { label: 'postgres_pglite', storage: new PostgresContentStorage({ pglite }), options: { filtered: FULL, naivePages: FULL ? 1 : 0 } },
  ...(pool ? [{ label: 'postgres_server', storage: new PostgresContentStorage({ pool, tablePrefix: prefix }), options: {} }] : []),
];
let diskP95;
try {
  // Seeded side by side (not measured), then measured one after the other.
  await Promise.all(
    storages.map(async ({ label, storage }) => {
      const seeding = performance.now();
      await seed(storage);
      print(`${label}_seed_${DOCUMENTS}_states`, performance.now() - seeding, 'ms (seeded side by side)');
    }),
  );
  for (const { label, storage, options } of storages) {
    const p95 = await measure(label, storage, options);
    if (label === 'disk') diskP95 = p95;
  }
  if (!pool)
    console.log('postgres_server: skipped (set KM_BENCH_POSTGRES_URL to a PostgreSQL server, e.g. postgres://km:km@127.0.0.1:5433/km)');
} finally {
  await rm(directory, { recursive: true, force: true });
  await pglite.close();
  if (pool) {
    await pool.query(`DROP TABLE IF EXISTS "${prefix}files", "${prefix}file_chunks"; DROP SEQUENCE IF EXISTS "${prefix}file_versions"`);
    await pool.end();
  }
}

const pass = diskP95 < FLOOR_MS;
console.log(`${pass ? 'PASS' : 'FAIL'} disk page p95 ${diskP95.toFixed(2)} ms < ${FLOOR_MS} ms (${DOCUMENTS} documents, ${PAGE} a page)`);
if (!pass) process.exitCode = 1;
