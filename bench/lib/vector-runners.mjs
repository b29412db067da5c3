// The systems the vector bench measures on the same data, behind one shape:
//   { label, build(data, progress?) -> state, prepareQuery(Float32Array) -> query, search(state, query, k, group?) -> rows, close(state) }
// `rows` are row numbers of the data set (record ids `r<row>`); `group` restricts the search to
// the rows whose tag g is that value (row % GROUPS), 1% of them. `build` calls `progress(done)`
// after each tenth of the rows, when given.
import { row } from './vector-data.mjs';

/** Values of tag g: a filter on one of them matches 1% of the records. */
export const GROUPS = 100;
const BATCH = 10_000;

/** Record id of a row, and back. */
const idOf = (r) => `r${r}`;
const rowOf = (id) => Number(id.slice(1));

/**
 * A SimpleVectorDb of `core` built with `options` (e.g. `{ quantization: 'int8' }`): records
 * `r<row>` with tags `{ g: [row % 100] }` and payload `{ n: row }`, upserted 10,000 at a time.
 */
export function kmRunner(core, label, options = {}, index = 'bench') {
  return {
    label,
    async build(data, progress) {
      const db = new core.SimpleVectorDb(options);
      await upsertAll(db, index, data, progress);
      // An HNSW graph is built in the background: the build is done when it is.
      await db.vectorIndex(index)?.annIdle?.();
      return db;
    },
    prepareQuery: (query) => query,
    async search(db, query, k, group) {
      const filters = group === undefined ? undefined : [core.MemoryFilters.byTag('g', String(group))];
      const rows = [];
      for await (const [record] of db.getSimilarList(index, query, { limit: k, minRelevance: -1, filters })) rows.push(rowOf(record.id));
      return rows;
    },
    close: (db) => db.close(),
  };
}

/** Upserts every row of `data` into `index` of `db` (10,000 records per batch). */
export async function upsertAll(db, index, data, progress) {
  const tick = tenths(data.count, progress);
  for (let start = 0; start < data.count; start += BATCH) {
    const batch = [];
    for (let r = start; r < Math.min(data.count, start + BATCH); r++) {
      batch.push({ id: idOf(r), vector: row(data.vectors, data.dims, r), tags: { g: [String(r % GROUPS)] }, payload: { n: r } });
    }
    await db.upsertBatch(index, batch);
    tick(start + batch.length);
  }
}

/** A function of the rows done so far that calls `progress` each time another tenth is done. */
function tenths(count, progress) {
  let next = 1;
  return (done) => {
    if (!progress || done * 10 < next * count) return;
    while (done * 10 >= next * count) next++;
    progress(done);
  };
}

/**
 * LangChain's MemoryVectorStore (in-memory, exact cosine in JavaScript), as its users feed it:
 * vectors as number arrays, metadata `{ g, n }`, a filter function for the 1% filter.
 */
export function langchainRunner(MemoryVectorStore) {
  const noEmbeddings = { embedQuery: async () => [], embedDocuments: async () => [] };
  return {
    label: 'LangChain MemoryVectorStore',
    async build(data, progress) {
      const store = new MemoryVectorStore(noEmbeddings);
      const tick = tenths(data.count, progress);
      for (let start = 0; start < data.count; start += BATCH) {
        const vectors = [];
        const documents = [];
        for (let r = start; r < Math.min(data.count, start + BATCH); r++) {
          vectors.push(Array.from(row(data.vectors, data.dims, r)));
          documents.push({ pageContent: '', metadata: { g: r % GROUPS, n: r } });
        }
        await store.addVectors(vectors, documents);
        tick(start + vectors.length);
      }
      return store;
    },
    prepareQuery: (query) => Array.from(query),
    async search(store, query, k, group) {
      const filter = group === undefined ? undefined : (doc) => doc.metadata.g === group;
      const results = await store.similaritySearchVectorWithScore(query, k, filter);
      return results.map(([doc]) => doc.metadata.n);
    },
    close: async () => {},
  };
}

/**
 * hnswlib-node (the C++ hnswlib): cosine space, built single-threaded with
 * `initIndex(N, m, efConstruction, seed)` and one `addPoint` per row, searched at `efSearch`;
 * the 1% filter is its filter callback on the label (the row).
 */
export function hnswlibRunner(hnswlib, { m, efConstruction, efSearch, seed = 100 }) {
  return {
    label: `hnswlib-node (M ${m}, efC ${efConstruction}, ef ${efSearch})`,
    async build(data, progress) {
      const index = new hnswlib.HierarchicalNSW('cosine', data.dims);
      index.initIndex(data.count, m, efConstruction, seed);
      const tick = tenths(data.count, progress);
      for (let r = 0; r < data.count; r++) {
        index.addPoint(Array.from(row(data.vectors, data.dims, r)), r);
        tick(r + 1);
      }
      index.setEf(efSearch);
      return index;
    },
    prepareQuery: (query) => Array.from(query),
    async search(index, query, k, group) {
      const filter = group === undefined ? undefined : (label) => label % GROUPS === group;
      return index.searchKnn(query, k, filter).neighbors;
    },
    close: async () => {},
  };
}
