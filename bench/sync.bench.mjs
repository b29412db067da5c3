// Syncing a folder (issue 39): 10,000 small files in a temp folder synced into a memory on disk
// (core's embedded defaults: DiskContentStorage and SimpleVectorDb under a data folder) with
// `memory.sync(folderSource(...))`; then a second sync of the same, unchanged files, which is
// what is measured: it lists and hashes every file, reads what the index holds for the source
// (every synced document's state, through the document listing) and ingests nothing.
// The first sync uses hashing embeddings (HashingEmbeddingGenerator), not the local model,
// which would make 10,000 imports take far longer and is not what this measures.
// Floor: the second sync under 10 s.
//
//   pnpm --filter @km/bench bench:sync      (BENCH_SYNC_FILES=10000)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { folderSource, HashingEmbeddingGenerator, KernelMemoryBuilder, silentLogger } from '@km/core';

const FILES = Number(process.env.BENCH_SYNC_FILES ?? 10_000);
const FLOOR_MS = 10_000;

const print = (name, value, unit) => console.log(`${name} ${typeof value === 'number' ? +value.toFixed(2) : value} ${unit}`);

const directory = await mkdtemp(join(tmpdir(), 'km-bench-sync-'));
let secondMs;
try {
  const root = join(directory, 'folder');
  for (let folder = 0; folder < Math.ceil(FILES / 100); folder++) {
    await mkdir(join(root, `folder-${folder}`), { recursive: true });
    const writes = [];
    for (let n = folder * 100; n < Math.min(FILES, (folder + 1) * 100); n++) {
      writes.push(
        writeFile(join(root, `folder-${folder}`, `note-${n}.md`), `# Note ${n}\n\nNote ${n} is about topic ${n % 97} and item ${n}.\n`),
      );
    }
    await Promise.all(writes);
  }
  const memory = new KernelMemoryBuilder()
    .withDataDirectory(join(directory, 'data'))
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withLogger(silentLogger)
    .build();
  const source = folderSource({ root });

  let started = performance.now();
  const first = await memory.sync(source, { concurrency: 8 });
  print(`first_sync_${FILES}_files`, performance.now() - started, `ms (hashing embeddings; added ${first.added}, failed ${first.failed})`);
  if (first.added !== FILES)
    throw new Error(`the first sync added ${first.added} of ${FILES} files: ${JSON.stringify(first.failures.slice(0, 3))}`);

  started = performance.now();
  const second = await memory.sync(source);
  secondMs = performance.now() - started;
  print(
    `second_sync_${FILES}_unchanged_files`,
    secondMs,
    `ms (unchanged ${second.unchanged}, ingested ${second.added + second.updated}, deleted ${second.deleted})`,
  );
  if (second.unchanged !== FILES) throw new Error(`the second sync found ${second.unchanged} of ${FILES} files unchanged`);
} finally {
  await rm(directory, { recursive: true, force: true });
}

const pass = secondMs < FLOOR_MS;
console.log(`${pass ? 'PASS' : 'FAIL'} second sync of ${FILES} unchanged files ${(secondMs / 1000).toFixed(2)} s < ${FLOOR_MS / 1000} s`);
if (!pass) process.exitCode = 1;
