// Metrics of the evaluation bench (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  containsGold,
  goldRank,
  mean,
  ndcgAt,
  normalizeAnswer,
  percentile,
  rankMetrics,
  recallAt,
  sample,
  spread,
} from '../lib/metrics.mjs';
import { answerBody, firstQuote, summarizeAsks } from '../lib/rag-measure.mjs';

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

test('ask rates: false not-found over the answerable kinds, gold-in over those with answers, refusals per kind', () => {
  const s = summarizeAsks([
    { kind: 'answerable', hasAnswers: true, noResult: false, correct: true, firstCorrect: true, ms: 10 },
    { kind: 'answerable', hasAnswers: true, noResult: true, correct: false, firstCorrect: false, ms: 20 },
    { kind: 'squad', hasAnswers: false, noResult: false, correct: false, firstCorrect: false, ms: 30 },
    { kind: 'offtopic', hasAnswers: false, noResult: true, correct: false, firstCorrect: false, ms: 40 },
    { kind: 'adversarial', hasAnswers: false, noResult: false, correct: false, firstCorrect: false, ms: 50 },
  ]);
  assert.deepEqual(s, {
    answerable: 3,
    falseNotFound: 0.333,
    goldIn: 0.5,
    goldInFirst: 0.5,
    offTopic: 1,
    offTopicRefused: 1,
    unanswerable: 1,
    unanswerableRefused: 0,
    p50Ms: 30,
    p95Ms: 50,
  });
  assert.equal(summarizeAsks([{ kind: 'offtopic', hasAnswers: false, noResult: true, ms: 1 }]).goldIn, null);
});

test('nDCG@10 and recall@10 with one or several relevant documents', () => {
  assert.equal(ndcgAt(['a', 'b'], ['a']), 1);
  assert.equal(ndcgAt(['x', 'a'], ['a']), 1 / Math.log2(3));
  assert.equal(ndcgAt(['a', 'x', 'b'], ['a', 'b']), (1 + 1 / 2) / (1 + 1 / Math.log2(3)));
  assert.equal(ndcgAt(['x'], []), null);
  assert.equal(recallAt(['a', 'x', 'b'], ['a', 'b', 'c'], 2), 1 / 3);
  assert.equal(mean([1, null, 0]), 0.5);
  assert.equal(firstQuote('Preamble:\n\n> "a" [1]\n> "b" [2]'), '> "a" [1]');
});

test('the question sample is seeded: same seed, same questions, no repeats', () => {
  const items = Array.from({ length: 100 }, (_, i) => i);
  const a = sample(items, 10, 16);
  assert.deepEqual(a, sample(items, 10, 16));
  assert.notDeepEqual(a, sample(items, 10, 17));
  assert.equal(new Set(a).size, 10);
  assert.equal(sample(items, Number.POSITIVE_INFINITY).length, 100);
});
