// Retrieval and answer metrics of the evaluation bench (rag-eval.bench.mjs): pure functions,
// unit-tested in bench/test/metrics.test.mjs.

/**
 * The p-th percentile (0..100) of `values`, nearest-rank on the sorted copy; NaN when empty.
 *
 * ```js
 * percentile([5, 1, 3], 50); // 3
 * ```
 */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * 1-based rank of the first of `ranked` ids equal to `gold`, or 0 when it is absent. Document
 * level: `ranked` holds one id per document, best first (a search's citations, in order).
 */
export function goldRank(ranked, gold) {
  const i = ranked.indexOf(gold);
  return i < 0 ? 0 : i + 1;
}

/**
 * recall@k for each k and MRR@mrrK over the gold ranks of several questions (0 = not retrieved).
 * With one gold passage per question, recall@k is the share of questions whose gold is in the top k.
 */
export function rankMetrics(ranks, ks = [1, 5, 10], mrrK = 10) {
  const n = ranks.length || 1;
  const recall = Object.fromEntries(ks.map((k) => [k, ranks.filter((r) => r > 0 && r <= k).length / n]));
  const mrr = ranks.reduce((sum, r) => sum + (r > 0 && r <= mrrK ? 1 / r : 0), 0) / n;
  return { recall, mrr };
}

/**
 * Text folded for answer matching: lower case, accents removed, punctuation as spaces (a
 * decimal point or thousands separator between digits is kept, so "3.5" stays "3.5" and
 * "1,200" becomes "1200"), whitespace collapsed.
 */
export function normalizeAnswer(text) {
  return String(text)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/(\d)\.(?=\d)/g, '$1\u0000')
    .replace(/[^\p{L}\p{N}\u0000]+/gu, ' ')
    .replace(/\u0000/g, '.')
    .trim()
    .replace(/\s+/g, ' ');
}

/**
 * True when the normalised `answer` holds one of the normalised gold aliases as whole words
 * ("1969" is not found in "19690").
 */
export function containsGold(answer, golds) {
  const text = ` ${normalizeAnswer(answer)} `;
  return golds.some((gold) => {
    const g = normalizeAnswer(gold);
    return g !== '' && text.includes(` ${g} `);
  });
}

/** A seeded pseudo-random generator in [0, 1) (LCG), the same sequence for the same seed. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** `count` items of `items` drawn without replacement with a fixed seed (all of them, shuffled, when count >= length). */
export function sample(items, count, seed = 16) {
  const random = seededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, Math.min(count, copy.length));
}

/** p10 / p50 / p90 of `values`, rounded to 3 decimals (null when there are none). */
export function spread(values) {
  if (values.length === 0) return null;
  const r = (x) => Math.round(x * 1000) / 1000;
  return { p10: r(percentile(values, 10)), p50: r(percentile(values, 50)), p90: r(percentile(values, 90)), n: values.length };
}

/**
 * nDCG@k of a ranking (document ids, best first) against a set of relevant ids (binary
 * relevance): DCG of the hits over the DCG of a perfect ranking. Null when there is no gold.
 *
 * ```js
 * ndcgAt(['a', 'b'], ['b'], 10); // 1 / log2(3) = 0.631
 * ```
 */
export function ndcgAt(ranked, golds, k = 10) {
  const gold = new Set(golds);
  if (gold.size === 0) return null;
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (gold.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, gold.size); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

/** Share of the relevant ids found in the first k of a ranking; null when there is no gold. */
export function recallAt(ranked, golds, k = 10) {
  const gold = new Set(golds);
  if (gold.size === 0) return null;
  return ranked.slice(0, k).filter((id) => gold.has(id)).length / gold.size;
}

/** The mean of the numbers of `values` (nulls left out); null when there are none. */
export function mean(values) {
  const kept = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  return kept.length ? kept.reduce((a, b) => a + b, 0) / kept.length : null;
}
