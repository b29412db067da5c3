// The answerability model's logistic regression (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitLogistic, logisticScore, withThreshold } from '../lib/logistic.mjs';

test('fits a separating direction: the feature that tells the classes apart gets the weight', () => {
  const rows = [];
  for (let i = 0; i < 40; i++) {
    rows.push({ x: [0.6 + (i % 10) / 40, (i % 7) / 7], y: 1 });
    rows.push({ x: [0.1 + (i % 10) / 40, (i % 5) / 5], y: 0 });
  }
  const model = fitLogistic(rows);
  assert.ok(model.weights[0] > 2 * Math.abs(model.weights[1]), `weights ${model.weights}`);
  assert.ok(rows.every((r) => logisticScore(model, r.x) >= 0 === (r.y === 1)));
});

test('withThreshold lets through all but the allowed share of the positives, and no more', () => {
  const model = { weights: [1], intercept: 0 };
  const positives = [[0.1], [0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8], [0.9], [1.0]];
  const strict = withThreshold(model, positives, 0);
  assert.equal(positives.filter((x) => logisticScore(strict, x) < 0).length, 0);
  const loose = withThreshold(model, positives, 0.2);
  assert.equal(positives.filter((x) => logisticScore(loose, x) < 0).length, 2);
});

test('refuses rows of one class only', () => {
  assert.throws(() => fitLogistic([{ x: [1], y: 1 }]), /both classes/);
});
