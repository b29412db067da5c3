import { describe, expect, it } from 'vitest';
import { TopK } from '../src/top-k.js';

/** A seeded pseudo-random generator (mulberry32), values in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Items 0..n-1 with scores from a handful of values (many ties), pushed in a shuffled order. */
function tiedScores(n: number, distinct: number, random: () => number): Array<[item: number, score: number]> {
  const pairs: Array<[number, number]> = [];
  for (let item = 0; item < n; item++) pairs.push([item, Math.floor(random() * distinct) / distinct]);
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
  }
  return pairs;
}

/** The oracle: every pair sorted by score, highest first, ties by `order`, cut at k. */
function oracle(pairs: Array<[number, number]>, k: number, order: (a: number, b: number) => number): Array<[number, number]> {
  return [...pairs].sort((a, b) => b[1] - a[1] || order(a[0], b[0])).slice(0, k);
}

describe('TopK', () => {
  it('keeps the k highest scores, highest first', () => {
    const top = new TopK(3);
    for (const [item, score] of [
      [1, 0.2],
      [2, 0.9],
      [3, 0.5],
      [4, 0.1],
      [5, 0.7],
    ] as const)
      top.push(score, item);
    expect(top.sorted()).toEqual([
      [2, 0.9],
      [5, 0.7],
      [3, 0.5],
    ]);
    expect(top.threshold).toBe(0.5);
  });

  it('with a tie-break, keeps the k best by (score desc, tie-break asc) under many ties, whatever the push order', () => {
    const random = seeded(7);
    const ascending = (a: number, b: number) => a - b;
    const descending = (a: number, b: number) => b - a;
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(random() * 300);
      const k = 1 + Math.floor(random() * 40);
      const distinct = 1 + Math.floor(random() * 6);
      const pairs = tiedScores(n, distinct, random);
      for (const order of [ascending, descending]) {
        const top = new TopK(k, order);
        for (const [item, score] of pairs) top.push(score, item);
        expect(top.sorted()).toEqual(oracle(pairs, k, order));
      }
    }
  });

  it('with a tie-break, the same set comes out of different push orders (callers guarding with >= threshold)', () => {
    const random = seeded(11);
    const pairs = tiedScores(500, 3, random);
    const reversed = [...pairs].reverse();
    const results = [pairs, reversed].map((order) => {
      const top = new TopK(25, (a, b) => a - b);
      for (const [item, score] of order) if (score >= top.threshold) top.push(score, item);
      return top.sorted();
    });
    expect(results[0]).toEqual(results[1]);
    expect(results[0]).toEqual(oracle(pairs, 25, (a, b) => a - b));
  });

  it('without a tie-break, a score equal to the lowest kept is rejected once full', () => {
    const top = new TopK(2);
    top.push(0.5, 1);
    top.push(0.5, 2);
    top.push(0.5, 3);
    top.push(0.4, 4);
    expect(
      top
        .sorted()
        .map(([item]) => item)
        .sort(),
    ).toEqual([1, 2]);
  });
});
