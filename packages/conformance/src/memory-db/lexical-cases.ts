import { isKmError, matchesFilters, MemoryFilters, type MemoryFilter, type SimilarityOptions, type TagCollection } from '@km/core';
import { describe, expect, it, type TestContext } from 'vitest';
import { collect, eventually } from '../util/async.js';
import { holdersOfAnyWord, LEXICAL_FILTER_SEED, LEXICAL_TEXTS, NO_LEXICAL_SEARCH, wordsOf } from './lexical-fixture.js';
import { record, upsertAll, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

const invalidArgument = (e: unknown) => isKmError(e, 'invalid_argument');

/**
 * Query texts built to break a search that splices words into a query language (tsquery,
 * query_string, SQL, JSON): each must be searched as the plain words it holds.
 */
const HOSTILE_QUERIES = [
  `zephyr" OR "1"="1`,
  `zephyr') OR 1=1; DROP TABLE km; --`,
  'zephyr & | ! ( ) : * < > \\ quartz',
  'zephyr:* | !amber',
  '(zephyr AND NOT amber) OR harbor*',
  '\\"zephyr\\" <-> amber',
  'zephyr {"query":{"match_all":{}}}',
  'zephyr~2 amber^10 -violet +meadow',
];

/** Lexical filter cases by name; the oracle (core's `matchesFilters`) and the words give the expected ids. */
const LEXICAL_FILTER_CASES: Record<string, { filters: MemoryFilter[]; negated: boolean }> = {
  'AND inside a filter': { filters: [MemoryFilters.byTag('user', 'bob').byTag('type', 'news')], negated: false },
  'OR across filters': { filters: [MemoryFilters.byTag('type', 'blog'), MemoryFilters.byTag('type', 'sport')], negated: false },
  'value built to inject': { filters: [MemoryFilters.byTag('user', 'x; DROP TABLE t; --')], negated: false },
  'NOT condition': { filters: [MemoryFilters.notTag('user', 'alice')], negated: true },
  'AND with NOT': { filters: [MemoryFilters.byTag('type', 'news').notTag('user', 'bob')], negated: true },
};

/**
 * Search by words (`mode: 'lexical'`), run when the instance declares `lexicalSearch`: OR
 * semantics over the query's words, rarer and more words rank higher, filters, limit, scores in
 * [0, 1], case folding, and hostile text searched as words. Expectations hold on every full-text
 * engine km supports: no stemming and no exact scores are asserted.
 */
export function lexicalCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);
  const seed = async (ctx: TestContext, texts: Record<string, { text: string; tags?: TagCollection }>) => {
    const f = await fresh();
    ctx.skip(!f.capabilities.lexicalSearch, NO_LEXICAL_SEARCH);
    await f.db.createIndex(f.index, 3);
    await upsertAll(
      f.db,
      f.index,
      Object.entries(texts).map(([id, { text, tags }], i) => record(id, [1, i + 1, 0.5], tags ?? {}, { text })),
    );
    return f;
  };
  const seedTexts = (ctx: TestContext) => seed(ctx, Object.fromEntries(Object.entries(LEXICAL_TEXTS).map(([id, text]) => [id, { text }])));
  const search = async (f: MemoryDbFixture, text: string, options: SimilarityOptions = {}) =>
    collect(f.db.getSimilarList(f.index, text, { mode: 'lexical', limit: 50, ...options }));
  const ids = (results: Array<[{ id: string }, number]>) => results.map(([r]) => r.id);

  describe('lexical search', () => {
    it('returns exactly the records holding a query word; a record with none never comes back', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => {
        const found = ids(await search(f, 'amber zephyr')).sort();
        expect(found).toEqual(holdersOfAnyWord(LEXICAL_TEXTS, 'amber zephyr'));
        expect(found).not.toContain('none');
        expect(found, 'a word is not a prefix').not.toContain('zephyrus');
      });
    });

    // A ranking without inverse document frequency (PostgreSQL's ts_rank and ts_rank_cd alone)
    // ties "rare" with the common passages, and ties in id order put it last: weight each query
    // word by how few records hold it (BM25's idf) to pass.
    it('a record holding the rare query word ranks above records holding only a common one (IDF)', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => {
        const found = ids(await search(f, 'amber zephyr'));
        const rare = found.indexOf('rare');
        expect(rare).toBeGreaterThanOrEqual(0);
        for (const common of found.filter((id) => id.startsWith('common-'))) {
          expect(rare, `"rare" (zephyr) before "${common}" (amber)`).toBeLessThan(found.indexOf(common));
        }
      });
    });

    it('a record holding more query words ranks higher, other things equal', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => {
        // "both" is a "common-*" passage with one more query word, of the same length.
        expect(ids(await search(f, 'amber zephyr'))[0]).toBe('both');
        expect(ids(await search(f, 'amber violet'))[0]).toMatch(/^common-/);
      });
    });

    it('limit caps the results, keeping the best', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => {
        expect(ids(await search(f, 'amber zephyr', { limit: 2 }))).toEqual(['both', 'rare']);
        expect(ids(await search(f, 'amber zephyr', { limit: 1 }))).toEqual(['both']);
      });
    });

    it('relevance is in [0, 1] and never increases down the list', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => {
        const results = await search(f, 'amber zephyr violet copper');
        expect(results.length).toBeGreaterThan(3);
        results.forEach(([r, score], i) => {
          expect(score, r.id).toBeGreaterThanOrEqual(0);
          expect(score, r.id).toBeLessThanOrEqual(1);
          if (i > 0) expect(score, `${r.id} after ${results[i - 1]![0].id}`).toBeLessThanOrEqual(results[i - 1]![1]);
        });
      });
    });

    it('folds case, accented letters included ("CAFÉ" finds "café")', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => {
        expect(ids(await search(f, 'ZEPHYR')).sort()).toEqual(['both', 'rare']);
        expect(ids(await search(f, 'CAFÉ'))).toEqual(['cafe']);
        expect(ids(await search(f, 'Café'))).toEqual(['cafe']);
      });
    });

    it('hostile text (quotes, operators, SQL, JSON) is searched as words: no error, no injection', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => expect(ids(await search(f, 'zephyr')).sort()).toEqual(['both', 'rare']));
      for (const query of HOSTILE_QUERIES) {
        const found = ids(await search(f, query)).sort();
        expect(found, query).toEqual(holdersOfAnyWord(LEXICAL_TEXTS, query));
      }
    });

    it('a query without searchable words returns nothing or throws invalid_argument', async (ctx) => {
      const f = await seedTexts(ctx);
      await wait(async () => expect(await search(f, 'zephyr')).not.toEqual([]));
      for (const query of ['&|!():*<>"\\', ' -- ; ', '***', '""']) {
        expect(wordsOf(query)).toEqual([]);
        const outcome = await search(f, query).then(
          (results) => ids(results),
          (error: unknown) => (invalidArgument(error) ? [] : Promise.reject(error)),
        );
        expect(outcome, query).toEqual([]);
      }
    });

    for (const [name, { filters, negated }] of Object.entries(LEXICAL_FILTER_CASES)) {
      const title = negated
        ? `filters, ${name}: the oracle's records among those holding the words, or unsupported_filter without NOT support`
        : `filters, ${name}: exactly the oracle's records among those holding the words`;
      it(title, async (ctx) => {
        const holders = Object.keys(LEXICAL_FILTER_SEED).filter((id) => wordsOf(LEXICAL_FILTER_SEED[id]!.text).includes('zephyr'));
        const expected = holders.filter((id) => matchesFilters(LEXICAL_FILTER_SEED[id]!.tags, filters)).sort();
        expect(expected.length, `vacuous case "${name}": the oracle expects no record`).toBeGreaterThan(0);
        expect(expected.length, `vacuous case "${name}": the oracle expects every record`).toBeLessThan(holders.length);
        const f = await seed(ctx, LEXICAL_FILTER_SEED);
        if (negated && !f.capabilities.negatedFilters) {
          await expect(search(f, 'zephyr', { filters })).rejects.toSatisfy((e: unknown) => isKmError(e, 'unsupported_filter'));
          return;
        }
        await wait(async () => {
          expect(ids(await search(f, 'zephyr')).sort()).toEqual(holders.sort());
          expect(ids(await search(f, 'zephyr', { filters })).sort()).toEqual(expected);
        });
      });
    }
  });

  describe('lexical search, missing capability', () => {
    it('without lexicalSearch, modes lexical and hybrid reject with invalid_argument', async (ctx) => {
      const f = await fresh();
      ctx.skip(f.capabilities.lexicalSearch, 'capability lexicalSearch is on');
      await f.db.createIndex(f.index, 3);
      await upsertAll(f.db, f.index, [record('a', [1, 0, 0], {}, { text: 'zephyr' })]);
      const query = f.capabilities.vectorSearch ? [1, 0, 0] : 'zephyr';
      for (const mode of ['lexical', 'hybrid'] as const) {
        await expect(collect(f.db.getSimilarList(f.index, query, { mode, text: 'zephyr' })), mode).rejects.toSatisfy(invalidArgument);
      }
    });

    it('without vectorSearch, mode hybrid rejects with invalid_argument', async (ctx) => {
      const f = await fresh();
      ctx.skip(f.capabilities.vectorSearch || !f.capabilities.lexicalSearch, 'needs lexicalSearch on and vectorSearch off');
      await f.db.createIndex(f.index, 3);
      await upsertAll(f.db, f.index, [record('a', [1, 0, 0], {}, { text: 'zephyr' })]);
      await expect(collect(f.db.getSimilarList(f.index, 'zephyr', { mode: 'hybrid' }))).rejects.toSatisfy(invalidArgument);
    });
  });
}
