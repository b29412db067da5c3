// One timing of the index-load measurement, in a node process of its own (see measureLoad in
// vector-measure.mjs): a process that just wrote or closed a large index reads a file several
// times slower than a fresh one (seen: 0.86 s then 4.2 s for the same 1.6 GB log), so the floor
// and the load are each timed in a fresh process, as a service that starts up meets them.
//   node load-child.mjs readfile <file>...   (reads each, one after the other)
//   node load-child.mjs open <directory> <index> <options JSON> <expected count> <dimensions>
// prints one JSON line: { ms } (readfile), { ms, firstSearchMs } (open).
import { readFile } from 'node:fs/promises';

const [mode, target, index, optionsJson, expected, dimensions] = process.argv.slice(2);
if (mode === 'readfile') {
  const t = performance.now();
  for (const file of process.argv.slice(3)) await readFile(file);
  console.log(JSON.stringify({ ms: performance.now() - t }));
} else if (mode === 'open') {
  const core = await import('@km/core');
  const options = JSON.parse(optionsJson);
  let t = performance.now();
  const db = new core.SimpleVectorDb({ ...options, directory: target, durable: false });
  const count = await db.count(index);
  const ms = performance.now() - t;
  if (count !== Number(expected)) throw new Error(`reopened index holds ${count} records, wrote ${expected}`);
  t = performance.now();
  for await (const _ of db.getSimilarList(index, new Float32Array(Number(dimensions)).fill(1), { limit: 10, minRelevance: -1 }));
  const firstSearchMs = performance.now() - t;
  await db.close();
  console.log(JSON.stringify({ ms, firstSearchMs }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
