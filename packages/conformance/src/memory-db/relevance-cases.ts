import { cosineSimilarity } from '@km/core/connector';
import { describe, expect, it, type TestContext } from 'vitest';
import { collect, eventually } from '../util/async.js';
import { NO_VECTOR_SEARCH, record, upsertAll, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

const VECTORS: Record<string, number[]> = {
  x: [1, 0, 0, 0],
  xy: [1, 1, 0, 0],
  y: [0, 2, 0, 0],
  mixed: [0.3, -0.7, 0.2, 0.9],
  opposite: [-1, 0, 0, 0],
  tiny: [1e-3, 2e-3, 0, 1e-3],
};

/** Relevance is cosine similarity on every connector, ordering, minRelevance, limit. */
export function relevanceCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);
  const seed = async (ctx: TestContext) => {
    const f = await fresh();
    ctx.skip(!f.capabilities.vectorSearch, NO_VECTOR_SEARCH);
    await f.db.createIndex(f.index, 4);
    await upsertAll(
      f.db,
      f.index,
      Object.entries(VECTORS).map(([id, v]) => record(id, v, {}, { text: id })),
    );
    return f;
  };

  describe('relevance', () => {
    it('relevance equals cosine similarity within 1e-3, most relevant first', async (ctx) => {
      const { db, index } = await seed(ctx);
      const query = [0.9, 0.4, 0.1, 0.2];
      const expected = Object.entries(VECTORS)
        .map(([id, v]) => [id, cosineSimilarity(query, v)] as const)
        .sort((a, b) => b[1] - a[1]);
      await wait(async () => {
        const results = await collect(db.getSimilarList(index, query, { minRelevance: -1, limit: 10 }));
        expect(results.map(([r]) => r.id)).toEqual(expected.map(([id]) => id));
        results.forEach(([, score], i) => expect(Math.abs(score - expected[i]![1]), `relevance of ${expected[i]![0]}`).toBeLessThan(1e-3));
      });
    });

    it('minRelevance keeps results >= it', async (ctx) => {
      const { db, index } = await seed(ctx);
      await wait(async () => {
        const kept = await collect(db.getSimilarList(index, [1, 0, 0, 0], { minRelevance: 0.7 }));
        expect(kept.map(([r]) => r.id)).toEqual(['x', 'xy']);
        const none = await collect(db.getSimilarList(index, [1, 0, 0, 0], { minRelevance: 0.999999 }));
        expect(none.map(([r]) => r.id)).toEqual(['x']);
      });
    });

    it('limit caps the results; limit <= 0 means the configured maximum', async (ctx) => {
      const { db, index } = await seed(ctx);
      await wait(async () => {
        expect((await collect(db.getSimilarList(index, [1, 0, 0, 0], { minRelevance: -1, limit: 1 }))).map(([r]) => r.id)).toEqual(['x']);
        expect(await collect(db.getSimilarList(index, [1, 0, 0, 0], { minRelevance: -1, limit: 0 }))).toHaveLength(6);
        expect(await collect(db.getSimilarList(index, [1, 0, 0, 0], { minRelevance: -1, limit: -5 }))).toHaveLength(6);
      });
    });
  });
}
