// The scale benchmark's synthetic corpus (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { syntheticCorpus, vocabulary, zipfSampler, seededRandom } from '../lib/synthetic-corpus.mjs';

test('is the same for the same seed: vocabulary, texts and vectors', () => {
  const a = syntheticCorpus({ vocabularySize: 500, dimensions: 8 });
  const b = syntheticCorpus({ vocabularySize: 500, dimensions: 8 });
  assert.deepEqual(a.words, b.words);
  assert.equal(a.text(20), b.text(20));
  assert.deepEqual(a.vector(), b.vector());
  assert.equal(new Set(vocabulary(500)).size, 500);
});

test('draws words by Zipf: rank 1 about twice as often as rank 2 and far more than rank 100', () => {
  const draw = zipfSampler(1000, seededRandom(3));
  const counts = new Array(1000).fill(0);
  for (let i = 0; i < 200_000; i++) counts[draw()]++;
  assert.ok(Math.abs(counts[0] / counts[1] - 2) < 0.2, `${counts[0]} / ${counts[1]}`);
  assert.ok(counts[0] > 50 * counts[99], `${counts[0]} vs ${counts[99]}`);
});

test('vectors are unit length and wordsRanked picks distinct words within the ranks', () => {
  const c = syntheticCorpus({ vocabularySize: 300, dimensions: 16 });
  assert.ok(Math.abs(Math.hypot(...c.vector()) - 1) < 1e-9);
  const picked = c.wordsRanked(5, 10, 20);
  assert.equal(new Set(picked).size, 5);
  assert.ok(picked.every((w) => c.words.indexOf(w) >= 10 && c.words.indexOf(w) < 20));
});
