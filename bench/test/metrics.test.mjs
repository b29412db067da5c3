// Metrics of the evaluation bench (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containsGold, goldRank, normalizeAnswer, percentile, rankMetrics, sample, spread } from '../lib/metrics.mjs';
import { answerBody, summarizeAsks } from '../lib/rag-measure.mjs';

test('percentile is nearest-rank on a sorted copy', () => {
  const values = [9, 1, 5, 3, 7];
  assert.equal(percentile(values, 50), 5);
  assert.equal(percentile(values, 0), 1);
  assert.equal(percentile(values, 95), 9);
  assert.equal(percentile(values, 10), 1);
  assert.deepEqual(values, [9, 1, 5, 3, 7]);
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.deepEqual(spread([0.5, 0.1, 0.9]), { p10: 0.1, p50: 0.5, p90: 0.9, n: 3 });
  assert.equal(spread([]), null);
});

test('recall@k and MRR@k over gold ranks (0 = not retrieved)', () => {
  assert.equal(goldRank(['a', 'b', 'c'], 'c'), 3);
  assert.equal(goldRank(['a'], 'z'), 0);
  const { recall, mrr } = rankMetrics([1, 2, 6, 0], [1, 5, 10], 10);
  assert.deepEqual(recall, { 1: 0.25, 5: 0.5, 10: 0.75 });
  assert.equal(mrr, (1 + 1 / 2 + 1 / 6) / 4);
  assert.equal(rankMetrics([11], [10], 10).mrr, 0, 'ranks past k do not count');
});

test('answers match gold aliases after folding case, accents, punctuation and whitespace', () => {
  assert.equal(normalizeAnswer('  The  U.S.  Café, 1,200 km; 3.5 bar!'), 'the u s cafe 1200 km 3.5 bar');
  assert.ok(containsGold('> "Its keeper was Thomas J. Whitcombe."', ['thomas j whitcombe']));
  assert.ok(containsGold('It costs 2.40 euros.', ['nope', '2.40']));
  assert.ok(containsGold('about 2,000 eggs', ['2000']));
  assert.ok(!containsGold('in 19690', ['1969']), 'whole words only');
  assert.ok(!containsGold('24', ['2.4']));
  assert.ok(!containsGold('anything', ['', '...']), 'an empty alias matches nothing');
});

test('the sources list is not part of the answer', () => {
  assert.equal(answerBody('> "x" [1]\n\nSources: [1] content.txt (document g12-river-elden)'), '> "x" [1]');
  assert.equal(answerBody('plain answer'), 'plain answer');
});

test('ask rates: gold-in and false not-found over answerable, no-answer accuracy over unanswerable', () => {
  const s = summarizeAsks([
    { answerable: true, noResult: false, correct: true, ms: 10 },
    { answerable: true, noResult: true, correct: false, ms: 20 },
    { answerable: false, noResult: true, correct: false, ms: 30 },
    { answerable: false, noResult: false, correct: false, ms: 40 },
  ]);
  assert.deepEqual(s, {
    answerable: 2,
    unanswerable: 2,
    containsGold: 0.5,
    falseNotFound: 0.5,
    noAnswerAccuracy: 0.5,
    p50Ms: 20,
    p95Ms: 40,
  });
  assert.equal(summarizeAsks([{ answerable: false, noResult: true, correct: false, ms: 1 }]).containsGold, null);
});

test('the question sample is seeded: same seed, same questions, no repeats', () => {
  const items = Array.from({ length: 100 }, (_, i) => i);
  const a = sample(items, 10, 16);
  assert.deepEqual(a, sample(items, 10, 16));
  assert.notDeepEqual(a, sample(items, 10, 17));
  assert.equal(new Set(a).size, 10);
  assert.equal(sample(items, Number.POSITIVE_INFINITY).length, 100);
});
