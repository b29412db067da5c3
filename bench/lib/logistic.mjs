// A small logistic regression for the answerability model (answerability-fit.bench.mjs): two or
// three features, classes weighted equally, gradient descent with a light L2 penalty.

/**
 * Fits `p(y = 1) = σ(b + Σ wᵢ xᵢ)` to rows `{ x: number[], y: 0 | 1 }`; returns `{ weights, intercept }`.
 * Each class weighs half of the loss whatever its size.
 *
 * ```js
 * fitLogistic([{ x: [0.9], y: 1 }, { x: [0.1], y: 0 }]).weights[0] > 0; // true
 * ```
 */
export function fitLogistic(rows, { l2 = 0.01, iterations = 4000, rate = 0.5 } = {}) {
  if (rows.length === 0) throw new Error('fitLogistic: no rows');
  const d = rows[0].x.length;
  const positives = rows.filter((r) => r.y === 1).length;
  const negatives = rows.length - positives;
  if (positives === 0 || negatives === 0) throw new Error('fitLogistic: both classes are needed');
  const weights = new Array(d).fill(0);
  let intercept = 0;
  for (let it = 0; it < iterations; it++) {
    const gradient = new Array(d).fill(0);
    let gradientB = 0;
    for (const { x, y } of rows) {
      const share = y === 1 ? 0.5 / positives : 0.5 / negatives;
      const p = 1 / (1 + Math.exp(-(intercept + x.reduce((sum, v, i) => sum + v * weights[i], 0))));
      for (let i = 0; i < d; i++) gradient[i] += share * (p - y) * x[i];
      gradientB += share * (p - y);
    }
    for (let i = 0; i < d; i++) weights[i] -= rate * (gradient[i] + l2 * weights[i]);
    intercept -= rate * gradientB;
  }
  return { weights, intercept };
}

/** The linear score of a row's features under a fitted model. */
export function logisticScore(model, x) {
  return model.intercept + x.reduce((sum, v, i) => sum + v * model.weights[i], 0);
}

/**
 * The model with its intercept moved so that at most `maxMissRate` of the positive rows score
 * below 0 (the threshold is the highest such): "not found" for as few answerable questions as that.
 */
export function withThreshold(model, positives, maxMissRate) {
  const scores = positives.map((x) => logisticScore(model, x)).sort((a, b) => a - b);
  const allowed = Math.floor(maxMissRate * scores.length);
  const threshold = scores[allowed];
  // Just below the lowest score that must pass, so that it scores >= 0.
  return { weights: model.weights, intercept: model.intercept - threshold + 1e-6 };
}
