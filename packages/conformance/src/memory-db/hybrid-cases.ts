import { isKmError, MemoryFilters, type HybridFusion, type MemoryFilter, type SimilarityOptions } from '@km/core';
import { cosineSimilarity } from '@km/core/connector';
import { describe, expect, it, type TestContext } from 'vitest';
import { collect, eventually } from '../util/async.js';
import { NO_LEXICAL_SEARCH } from './lexical-fixture.js';
import { NO_VECTOR_SEARCH, record, upsertAll, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

const QUERY = [1, 0, 0, 0];
const QUERY_TEXT = 'zephyr';
const WORDS = 'zephyr meadow lantern violet';
const NO_WORDS = 'copper harbor willow pebble';

/**
 * Hybrid passages: `v1`..`v5` near the query vector without the query word, `word` holding the
 * word with a vector opposite the query, `both` near and holding the word. `hidden` (tagged
 * apart, near and holding the word) is added by the filter case only.
 */
const HYBRID: Record<string, { vector: number[]; text: string }> = {
  v1: { vector: [1, 0.1, 0, 0], text: NO_WORDS },
  both: { vector: [1, 0.2, 0, 0], text: WORDS },
  v2: { vector: [1, 0.3, 0, 0], text: NO_WORDS },
  v3: { vector: [1, 0.6, 0, 0], text: NO_WORDS },
  v4: { vector: [1, 1, 0, 0], text: NO_WORDS },
  v5: { vector: [0.2, 1, 0, 0], text: NO_WORDS },
  word: { vector: [-1, 0, 0.1, 0], text: WORDS },
};
const HIDDEN = { vector: [1, 0, 0, 0], text: WORDS };
const WORD_HOLDERS = ['both', 'word'];

/** Invalid fusion options, by what is wrong with them. */
const BAD_FUSIONS: Record<string, HybridFusion> = {
  'unknown method': { method: 'nope' as HybridFusion['method'] },
  'vectorWeight above 1': { vectorWeight: 1.5 },
  'negative vectorWeight': { vectorWeight: -0.1 },
  'NaN vectorWeight': { vectorWeight: Number.NaN },
  'rrfK of 0': { rrfK: 0 },
  'negative rrfK': { rrfK: -5 },
};

/**
 * Search by vector and words fused (`mode: 'hybrid'`), run when the instance declares both
 * `vectorSearch` and `lexicalSearch`: relevance stays the cosine, each side finds what the other
 * misses, `minRelevance` and filters apply to both sides, the fusion weights move the order.
 */
export function hybridCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);
  const seed = async (ctx: TestContext, withHidden = false) => {
    const f = await fresh();
    ctx.skip(!f.capabilities.vectorSearch, NO_VECTOR_SEARCH);
    ctx.skip(!f.capabilities.lexicalSearch, NO_LEXICAL_SEARCH);
    await f.db.createIndex(f.index, 4);
    const records = Object.entries(HYBRID).map(([id, { vector, text }]) => record(id, vector, { group: ['shown'] }, { text }));
    if (withHidden) records.push(record('hidden', HIDDEN.vector, { group: ['hidden'] }, { text: HIDDEN.text }));
    await upsertAll(f.db, f.index, records);
    return f;
  };
  const hybrid = (f: MemoryDbFixture, options: SimilarityOptions = {}) =>
    collect(f.db.getSimilarList(f.index, QUERY, { mode: 'hybrid', text: QUERY_TEXT, minRelevance: -1, limit: 20, ...options }));
  const vector = (f: MemoryDbFixture, options: SimilarityOptions = {}) =>
    collect(f.db.getSimilarList(f.index, QUERY, { minRelevance: -1, limit: 20, ...options }));
  const ids = (results: Array<[{ id: string }, number]>) => results.map(([r]) => r.id);
  const cosine = (id: string) => cosineSimilarity(QUERY, (HYBRID[id] ?? HIDDEN).vector);

  describe('hybrid search', () => {
    it('relevance is the cosine similarity, as vector search reports it; vectors only when asked', async (ctx) => {
      const f = await seed(ctx);
      await wait(async () => {
        const results = await hybrid(f);
        expect(ids(results).sort()).toEqual(Object.keys(HYBRID).sort());
        for (const [r, score] of results) {
          expect(Math.abs(score - cosine(r.id)), `relevance of ${r.id}`).toBeLessThan(1e-3);
          expect(r.vector.length, `vector of ${r.id}`).toBe(0);
        }
        const withVectors = await hybrid(f, { withEmbeddings: true, limit: 1 });
        expect(withVectors[0]![0].vector.length).toBe(4);
      });
    });

    it('finds a record only its words match (vector far) and one only its vector matches', async (ctx) => {
      const f = await seed(ctx);
      // Both sides weigh the same here (core's default leans to the words): the case is about the store, not the weights.
      const fusion = { method: 'rrf', vectorWeight: 0.5 } as const;
      await wait(async () => {
        const top = ids(await hybrid(f, { limit: 3, fusion }));
        expect(ids(await vector(f, { limit: 3 }))).not.toContain('word');
        expect(top, 'found by words only').toContain('word');
        expect(top, 'found by vector only').toContain('v1');
        expect(top, 'found by both').toContain('both');
      });
    });

    it('minRelevance drops records whose cosine is below it, on both sides', async (ctx) => {
      const f = await seed(ctx);
      await wait(async () => {
        const results = await hybrid(f, { minRelevance: 0.5 });
        const expected = Object.keys(HYBRID).filter((id) => cosine(id) >= 0.5);
        expect(ids(results).sort()).toEqual(expected.sort());
        expect(ids(results), 'the best word match, with cosine -1').not.toContain('word');
        for (const [r, score] of results) expect(score, r.id).toBeGreaterThanOrEqual(0.5 - 1e-6);
      });
    });

    it('filters apply to both sides: a record matching words and vector but filtered out never appears', async (ctx) => {
      const f = await seed(ctx, true);
      const shown = Object.keys(HYBRID).sort();
      const filterLists: MemoryFilter[][] = [[MemoryFilters.byTag('group', 'shown')]];
      if (f.capabilities.negatedFilters) filterLists.push([MemoryFilters.notTag('group', 'hidden')]);
      await wait(async () => {
        expect(ids(await hybrid(f)), 'found when not filtered out').toContain('hidden');
        for (const filters of filterLists) {
          expect(ids(await hybrid(f, { filters })).sort()).toEqual(shown);
          expect(ids(await hybrid(f, { filters, limit: 2 }))).not.toContain('hidden');
        }
      });
    });

    it('weighted fusion with vectorWeight 1 orders like vector search; with 0 the word matches come first', async (ctx) => {
      const f = await seed(ctx);
      await wait(async () => {
        const byVector = ids(await vector(f));
        expect(ids(await hybrid(f, { fusion: { method: 'weighted', vectorWeight: 1 } }))).toEqual(byVector);
        const byWords = ids(await hybrid(f, { fusion: { method: 'weighted', vectorWeight: 0 } }));
        expect(byWords.slice(0, WORD_HOLDERS.length).sort()).toEqual(WORD_HOLDERS);
      });
    });

    it('invalid fusion options reject with invalid_argument (unknown method, vectorWeight outside [0, 1], rrfK <= 0)', async (ctx) => {
      const f = await seed(ctx);
      for (const [name, fusion] of Object.entries(BAD_FUSIONS)) {
        await expect(hybrid(f, { fusion }), name).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
      }
    });
  });
}
