// Seeded data, exact oracle and recall of the vector bench (node --test).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  CLUSTERS,
  createRandom,
  exactTopK,
  generateDataSet,
  meanRecallAtK,
  readDataFile,
  recallAtK,
  row,
  rowNorms,
  writeDataFile,
} from '../lib/vector-data.mjs';

const cosine = (a, b) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
};

test('the seeded generators give the same data for the same seed and other data for another', () => {
  assert.deepEqual(Array.from({ length: 5 }, createRandom(7)), Array.from({ length: 5 }, createRandom(7)));
  for (const kind of ['random', 'clustered']) {
    const a = generateDataSet({ kind, count: 300, queryCount: 4, dims: 16, seed: 5 });
    const b = generateDataSet({ kind, count: 300, queryCount: 4, dims: 16, seed: 5 });
    const c = generateDataSet({ kind, count: 300, queryCount: 4, dims: 16, seed: 6 });
    assert.deepEqual(a.vectors, b.vectors, kind);
    assert.deepEqual(a.queries, b.queries, kind);
    assert.notDeepEqual(a.vectors, c.vectors, kind);
    assert.notDeepEqual(a.vectors.subarray(0, 64), a.queries.subarray(0, 64), `${kind}: queries are not the first vectors`);
  }
});

test('random vectors are uniform in [-0.5, 0.5) and written into the given array', () => {
  const into = new Float32Array(2000 * 8);
  const { vectors } = generateDataSet({ kind: 'random', count: 2000, queryCount: 1, dims: 8, into });
  assert.equal(vectors, into);
  let sum = 0;
  let below = 0;
  for (const v of vectors) {
    assert.ok(v >= -0.5 && v < 0.5, `${v} out of range`);
    sum += v;
    if (v < 0) below++;
  }
  assert.ok(Math.abs(sum / vectors.length) < 0.01, 'mean near 0');
  assert.ok(Math.abs(below / vectors.length - 0.5) < 0.02, 'half below 0');
});

test('clustered points and queries sit around their own centre: nearest centre, and top-10 from the same cluster', () => {
  const dims = 64;
  const data = generateDataSet({ kind: 'clustered', count: 20_000, queryCount: 20, dims, seed: 3 });
  assert.equal(data.centres.length, CLUSTERS * dims);
  const nearestCentre = (v) => {
    let best = -1;
    let bestScore = -2;
    for (let c = 0; c < CLUSTERS; c++) {
      const s = cosine(v, row(data.centres, dims, c));
      if (s > bestScore) [best, bestScore] = [c, s];
    }
    return best;
  };
  for (let i = 0; i < 300; i++) assert.equal(nearestCentre(row(data.vectors, dims, i)), data.labels[i], `vector ${i}`);
  for (let q = 0; q < 20; q++) assert.equal(nearestCentre(row(data.queries, dims, q)), data.queryLabels[q], `query ${q}`);
  // Points of one cluster are much closer to each other than to other clusters' points.
  const own = cosine(row(data.vectors, dims, 0), row(data.vectors, dims, data.labels.indexOf(data.labels[0], 1)));
  assert.ok(own > 0.6, `same-cluster cosine ${own}`);
  // Each query's exact top 10 are points of the query's cluster (about 20 per cluster here).
  const norms = rowNorms(data.vectors, dims);
  for (let q = 0; q < 20; q++) {
    const top = exactTopK(data.vectors, dims, norms, row(data.queries, dims, q), 10);
    assert.deepEqual(
      top.map((r) => data.labels[r]),
      Array(10).fill(data.queryLabels[q]),
      `query ${q}`,
    );
  }
  // The random set has no such structure: a query's top 10 are no closer to it than that.
  const random = generateDataSet({ kind: 'random', count: 20_000, queryCount: 1, dims, seed: 3 });
  const randomTop = exactTopK(random.vectors, dims, rowNorms(random.vectors, dims), random.queries, 1);
  assert.ok(cosine(row(random.vectors, dims, randomTop[0]), random.queries) < 0.6);
});

test('exactTopK is the top k by cosine, best first, honouring accept', () => {
  const dims = 3;
  // Rows: cosine with the query [1, 0, 0] is 1, 0, -1, 0.6, 0.8 (row 5 is row 4 scaled: same cosine).
  const vectors = new Float32Array([1, 0, 0, 0, 1, 0, -1, 0, 0, 3, 4, 0, 4, 3, 0, 8, 6, 0]);
  const norms = rowNorms(vectors, dims);
  const query = new Float32Array([2, 0, 0]);
  assert.deepEqual(exactTopK(vectors, dims, norms, query, 3), [0, 4, 5]);
  assert.deepEqual(exactTopK(vectors, dims, norms, query, 10), [0, 4, 5, 3, 1, 2]);
  assert.deepEqual(
    exactTopK(vectors, dims, norms, query, 2, (r) => r % 2 === 1),
    [5, 3],
  );
  // Against a full sort on random data.
  const data = generateDataSet({ kind: 'random', count: 500, queryCount: 1, dims: 12, seed: 9 });
  const all = Array.from({ length: 500 }, (_, r) => [cosine(row(data.vectors, 12, r), data.queries), r]).sort((a, b) => b[0] - a[0]);
  assert.deepEqual(
    exactTopK(data.vectors, 12, rowNorms(data.vectors, 12), data.queries, 10),
    all.slice(0, 10).map(([, r]) => r),
  );
});

test('recall@k counts the true top k found in the first k results, in any order', () => {
  assert.equal(recallAtK(['a', 'b', 'c'], ['c', 'b', 'a'], 3), 1);
  assert.equal(recallAtK(['a', 'x', 'y', 'b'], ['a', 'b', 'c', 'd'], 2), 0.5, 'only the first k of each count');
  assert.equal(recallAtK([1, 2, 3, 4], [4, 3, 9, 8], 4), 0.5);
  assert.equal(recallAtK([], [1, 2], 2), 0);
  assert.equal(recallAtK(['r1'], ['r1'], 10), 1, 'fewer than k true neighbours');
  assert.equal(
    meanRecallAtK(
      [
        [1, 2],
        [3, 4],
      ],
      [
        [1, 2],
        [5, 6],
      ],
      2,
    ),
    0.5,
  );
  assert.throws(() => meanRecallAtK([[1]], [], 1), RangeError);
});

test('a data set written to a file reads back the same, into a given array', () => {
  const dir = mkdtempSync(join(tmpdir(), 'km-vector-data-'));
  try {
    const data = generateDataSet({ kind: 'clustered', count: 500, queryCount: 7, dims: 12, seed: 4 });
    const file = join(dir, 'data.f32');
    writeDataFile(file, data);
    const into = new Float32Array(500 * 12);
    const back = readDataFile(file, { count: 500, queryCount: 7, dims: 12, into });
    assert.equal(back.vectors, into);
    assert.deepEqual(back.vectors, data.vectors);
    assert.deepEqual(back.queries, data.queries);
    assert.throws(() => readDataFile(file, { count: 501, queryCount: 7, dims: 12 }), RangeError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
