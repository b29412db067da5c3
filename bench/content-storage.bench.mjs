// Large files through the content storages: a 50 MB upload (generated as it streams, never
// held whole) written and read back through each storage, each in its own process, then the same
// with a file four times larger. Prints the peak RSS of that process above its baseline for the
// write and the read, and whether the peak follows the file size, next to two peers measured in
// the same run: DiskContentStorage (the floor: streaming to a local file) and MemoryContentStorage
// (what buffering the whole file costs). Servers: Azurite (blob) and s3rver from npm, PostgreSQL
// on PGlite served over a socket, each in another process or the parent.
//
//   pnpm --filter @km/bench bench:storage            (KM_BENCH_FILE_MB=50)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { startPgliteServer } from '@km/memorydb-postgres/testing';
import { startAzuriteBlobs, startS3rver } from './lib/storage-servers.mjs';

const MB = 1024 * 1024;
const FILE_MB = Number(process.env.KM_BENCH_FILE_MB ?? 50);
/** The same file four times larger: a bounded storage's peak does not follow the file. */
const SIZES = [FILE_MB * MB, 4 * FILE_MB * MB];
const CHILD = fileURLToPath(new URL('./lib/storage-upload-child.mjs', import.meta.url));

function measure(kind, bytes, config = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, kind, String(bytes), JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || !line) reject(new Error(`${kind}: exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(line));
    });
  });
}

const azurite = await startAzuriteBlobs();
const s3 = await startS3rver();
const db = await PGlite.create();
const pg = await startPgliteServer(db);
const storages = [
  ['disk', {}],
  ['buffered', {}],
  ['azureblobs', { connectionString: azurite.connectionString }],
  ['s3', { endpoint: s3.endpoint, credentials: s3.credentials }],
  ['postgres', { url: pg.url }],
];
const rows = [];
try {
  for (const [kind, config] of storages) for (const bytes of SIZES) rows.push(await measure(kind, bytes, config));
} finally {
  await azurite.stop();
  await s3.stop();
  await pg.stop();
  await db.close();
}

const mb = (n) => (n / MB).toFixed(1);
console.log('\ncontent storage: a file written from a generated stream and read back as a stream, each run in its own process');
console.log('RSS peaks above the baseline taken after warm-up (Linux VmHWM, reset before each phase), and the peak of live');
console.log('memory (heap + Buffers still referenced, after a full GC every 100 ms; RSS also holds garbage not yet collected)');
console.log('storage       file MB  intact  write RSS  read RSS   live peak  write ms  read ms');
for (const r of rows) {
  console.log(
    `${r.kind.padEnd(13)} ${mb(r.size).padStart(7)}  ${String(r.same).padEnd(6)}  ${mb(r.writePeakRss - r.baselineRss).padStart(6)} MB  ${mb(r.readPeakRss - r.baselineRss).padStart(6)} MB  ${mb(r.livePeak).padStart(6)} MB  ${r.writeMs.toFixed(0).padStart(8)}  ${r.readMs.toFixed(0).padStart(7)}`,
  );
}
// Bounded: going from the small file to the large one (3 × FILE_MB more bytes) raises the live
// peak by less than a quarter of the extra bytes. The buffering peer is the counter-example.
console.log('');
for (const [kind] of storages) {
  const [small, large] = rows.filter((r) => r.kind === kind);
  const rss = (r) => Math.max(r.writePeakRss, r.readPeakRss) - r.baselineRss;
  const growth = large.livePeak - small.livePeak;
  const bounded = growth < (large.size - small.size) / 4;
  console.log(
    `${kind}: live peak ${mb(small.livePeak)} MB for ${mb(small.size)} MB, ${mb(large.livePeak)} MB for ${mb(large.size)} MB ` +
      `(RSS peak ${mb(rss(small))} → ${mb(rss(large))} MB): ${bounded ? 'bounded' : 'grows with the file'}`,
  );
}
