// One measurement of the content-storage bench, in its own process so that its peak RSS is its
// own: writes a file of `bytes` through one storage from a stream generated on the fly (never
// held whole), reads it back as a stream and checks its hash, then prints one JSON line.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';

const [kind, bytesText, configText] = process.argv.slice(2);
const bytes = Number(bytesText);
const config = JSON.parse(configText);
const CHUNK = 64 * 1024;

/** `bytes` of deterministic data, 64 KiB at a time, generated as they are asked for. */
function generated(hash) {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return this.push(null);
      const chunk = Buffer.alloc(Math.min(CHUNK, bytes - sent));
      for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE(((sent + i) * 2654435761) >>> 0, i);
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
}

async function open() {
  switch (kind) {
    case 'disk': {
      const { DiskContentStorage } = await import('@km/core');
      const directory = await mkdtemp(join(tmpdir(), 'km-bench-disk-'));
      return { storage: new DiskContentStorage({ directory }), cleanup: () => rm(directory, { recursive: true, force: true }) };
    }
    case 'buffered': {
      // The peer to beat: what a storage that collects the whole upload in memory costs.
      const { MemoryContentStorage } = await import('@km/core');
      return { storage: new MemoryContentStorage(), cleanup: async () => undefined };
    }
    case 'azureblobs': {
      const { AzureBlobsContentStorage } = await import('@km/storage-azure-blobs');
      return {
        storage: new AzureBlobsContentStorage({ connectionString: config.connectionString, container: 'kmbench' }),
        cleanup: async () => undefined,
      };
    }
    case 's3': {
      const { S3ContentStorage } = await import('@km/storage-s3');
      const storage = new S3ContentStorage({
        bucket: 'kmbench',
        endpoint: config.endpoint,
        forcePathStyle: true,
        createBucket: true,
        ...config.credentials,
      });
      return { storage, cleanup: async () => undefined };
    }
    case 'postgres': {
      const { PostgresContentStorage } = await import('@km/memorydb-postgres');
      const storage = new PostgresContentStorage({ connectionString: config.url, maxConnections: 2 });
      return { storage, cleanup: () => storage.close() };
    }
    default:
      throw new Error(`unknown storage ${kind}`);
  }
}

/**
 * The process's peak resident set since the last reset, from Linux's VmHWM. Writing 5 to
 * clear_refs resets it (a child spawned by a large parent otherwise reports the parent's peak).
 */
const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const resetPeakRss = () => writeFileSync('/proc/self/clear_refs', '5');
const live = () => {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

const { storage, cleanup } = await open();
// Warm up: the client, its connection and the container/bucket/tables exist before the baseline.
await storage.writeFile('bench', 'warmup', 'w.txt', 'warm');
await storage.readFile('bench', 'warmup', 'w.txt');
globalThis.gc?.();
const baseline = process.memoryUsage().rss;
const liveBaseline = live();
resetPeakRss();
// Live memory: the heap and the Buffers still referenced, sampled after a full collection every
// 100 ms. RSS also counts garbage V8 has not collected yet; this does not.
let livePeak = 0;
const sample = () => {
  globalThis.gc();
  livePeak = Math.max(livePeak, live() - liveBaseline);
};
// Also at the end of each phase: a phase that never yields to timers would otherwise go unsampled.
const sampler = setInterval(sample, 100);
const written = createHash('sha256');
const started = performance.now();
const size = await storage.writeFile('bench', 'big', 'big.bin', generated(written));
const writeMs = performance.now() - started;
const writePeak = peakRss();
sample();
resetPeakRss();
const read = createHash('sha256');
const readStart = performance.now();
for await (const chunk of await storage.readFileStream('bench', 'big', 'big.bin')) read.update(chunk);
const readMs = performance.now() - readStart;
const same = read.digest('hex') === written.digest('hex');
const readPeak = peakRss();
sample();
clearInterval(sampler);
await storage.deleteIndexDirectory('bench');
await cleanup();
console.log(
  JSON.stringify({ kind, size, same, baselineRss: baseline, writePeakRss: writePeak, readPeakRss: readPeak, livePeak, writeMs, readMs }),
);
process.exit(0);
