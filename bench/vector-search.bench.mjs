// SimpleVectorDb search speed on 100k x 384 random vectors, against this machine's
// memory-bandwidth floor (one read of every stored vector, measured in the same run), a plain
// JavaScript loop, and LangChain's MemoryVectorStore on the same data.
// Prints one `name value unit` line per figure. Run with `pnpm bench`.
import { MemoryFilters, SimpleVectorDb } from '@km/core';
import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';

const N = Number(process.env.BENCH_N ?? 100_000);
const DIMS = Number(process.env.BENCH_DIMS ?? 384);
const RUNS = 60;
const GROUPS = 100; // tag g has 100 values: a filter on one matches 1% of records

let seed = 42;
const random = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const randomVector = () => {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = random();
  return v;
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const time = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
const timeAsync = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const print = (name, value, unit) => console.log(`${name} ${typeof value === 'number' ? +value.toFixed(3) : value} ${unit}`);

const vectors = Array.from({ length: N }, randomVector);
const queries = Array.from({ length: RUNS }, randomVector);

// --- SimpleVectorDb ---------------------------------------------------------------
const db = new SimpleVectorDb();
const loadMs = await timeAsync(async () => {
  for (let start = 0; start < N; start += 10_000) {
    const batch = [];
    for (let i = start; i < Math.min(N, start + 10_000); i++) {
      batch.push({ id: `r${i}`, vector: vectors[i], tags: { g: [String(i % GROUPS)] }, payload: { n: i } });
    }
    await db.upsertBatch('bench', batch);
  }
});
const index = db.vectorIndex('bench');

const collect = async (it) => {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
};

// Warm up the JIT and caches.
for (let i = 0; i < 5; i++) {
  index.readAllVectors();
  await collect(db.getSimilarList('bench', queries[i], { limit: 10, minRelevance: -1 }));
}

const floor = [];
const search = [];
const filtered = [];
for (let r = 0; r < RUNS; r++) {
  floor.push(time(() => index.readAllVectors()));
  search.push(await timeAsync(() => collect(db.getSimilarList('bench', queries[r], { limit: 10, minRelevance: -1 }))));
  const filter = [MemoryFilters.byTag('g', String(r % GROUPS))];
  filtered.push(await timeAsync(() => collect(db.getSimilarList('bench', queries[r], { limit: 10, minRelevance: -1, filters: filter }))));
}

// --- Plain JavaScript loop over the same normalised vectors --------------------------------
const flat = new Float32Array(N * DIMS);
for (let i = 0; i < N; i++) {
  const v = vectors[i];
  let norm = 0;
  for (let j = 0; j < DIMS; j++) norm += v[j] * v[j];
  norm = Math.sqrt(norm);
  for (let j = 0; j < DIMS; j++) flat[i * DIMS + j] = v[j] / norm;
}
const jsLoop = [];
for (let r = 0; r < 10; r++) {
  const q = queries[r];
  jsLoop.push(
    time(() => {
      const scores = new Float32Array(N);
      for (let i = 0; i < N; i++) {
        let dot = 0;
        const base = i * DIMS;
        for (let j = 0; j < DIMS; j++) dot += flat[base + j] * q[j];
        scores[i] = dot;
      }
      return scores;
    }),
  );
}

// --- LangChain MemoryVectorStore ------------------------------------------------------
const noEmbeddings = { embedQuery: async () => [], embedDocuments: async () => [] };
const store = new MemoryVectorStore(noEmbeddings);
await store.addVectors(
  vectors.map((v) => Array.from(v)),
  vectors.map((_, i) => ({ pageContent: '', metadata: { g: i % GROUPS, n: i } })),
);
const langchain = [];
for (let r = 0; r < 5; r++) {
  const q = Array.from(queries[r]);
  langchain.push(await timeAsync(() => store.similaritySearchVectorWithScore(q, 10)));
}

const floorP50 = percentile(floor, 50);
const searchP50 = percentile(search, 50);
const langchainP50 = percentile(langchain, 50);
print('records', N, 'vectors');
print('dimensions', DIMS, 'floats');
print('load_batch_upsert', loadMs, 'ms');
print('bandwidth_floor_p50', floorP50, 'ms');
print('memory_bandwidth', (N * DIMS * 4) / (floorP50 / 1000) / 1e9, 'GB/s');
print('search_top10_p50', searchP50, 'ms');
print('search_top10_p99', percentile(search, 99), 'ms');
print('search_vs_floor', searchP50 / floorP50, 'x (target <= 1.3)');
print('plain_js_loop_p50', percentile(jsLoop, 50), 'ms');
print('plain_js_vs_floor', percentile(jsLoop, 50) / floorP50, 'x');
print('langchain_memory_vector_store_p50', langchainP50, 'ms');
print('speedup_vs_langchain', langchainP50 / searchP50, 'x (target >= 30)');
print('filtered_1pct_top10_p50', percentile(filtered, 50), 'ms (target < 2)');
print('filtered_1pct_top10_p99', percentile(filtered, 99), 'ms');
