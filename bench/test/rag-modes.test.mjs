// Which configurations a build runs (node --test, with fake memories).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retrievalConfigs, unsupportedReasons } from '../lib/rag-modes.mjs';

const result = (pairs) => ({ results: pairs.map(([documentId, relevance]) => ({ documentId, partitions: [{ relevance }] })) });

test('a refused mode is n/a with the reason; an ignored one is n/a; a working one is measured', async () => {
  const memory = {
    async search(query, options) {
      if (options.mode === 'lexical')
        throw Object.assign(new Error('lexical search needs a memory DB with lexicalSearch'), { code: 'invalid_argument' });
      if (options.rerank === true) return result([['a', 0.9]]); // ignored: same as hybrid
      if (options.mode === 'hybrid') return result([['a', 0.9]]);
      return result([
        ['a', 0.9],
        ['b', 0.5],
      ]);
    },
  };
  const reasons = await unsupportedReasons(memory, retrievalConfigs({ withModelReranker: true }), 'gold', ['q1', 'q2']);
  assert.equal(reasons.default, null);
  assert.equal(reasons.vector, null);
  assert.match(reasons.lexical, /^n\/a \(not supported by this build: lexical search needs/);
  assert.equal(reasons.hybrid, null);
  assert.match(reasons['hybrid+model'], /^n\/a \(ignored by this build/);
});

test('a configuration whose base is n/a is n/a too; other errors propagate', async () => {
  const refuses = {
    search: async (q, o) =>
      o.mode === 'vector' ? result([]) : Promise.reject(Object.assign(new Error('no'), { code: 'invalid_argument' })),
  };
  const reasons = await unsupportedReasons(refuses, retrievalConfigs({ withModelReranker: true }), 'i', ['q']);
  assert.match(reasons.hybrid, /^n\/a \(not supported/);
  assert.equal(reasons['hybrid+model'], 'n/a (needs hybrid)');
  const broken = { search: async () => Promise.reject(new Error('disk full')) };
  await assert.rejects(unsupportedReasons(broken, retrievalConfigs(), 'i', ['q']), /disk full/);
});

test('the model reranker is listed only when asked for', () => {
  assert.deepEqual(
    retrievalConfigs().map((c) => c.name),
    ['default', 'vector', 'lexical', 'hybrid'],
  );
  assert.equal(retrievalConfigs({ withModelReranker: true }).at(-1).options.rerank, true);
});
