import type { PGlite } from '@electric-sql/pglite';
import { type Logger, MemoryFilters, type MemoryRecord } from '@km/core';
import { collect } from '@km/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb, type PostgresMemoryDbOptions } from '../src/index.js';
import { NO_REAL_POSTGRES, realDatabaseOfFile } from './real-postgres.js';
import { freshPglite } from './fresh-pglite.js';

// A table past EXACT_RANKING_ROWS (10,000 rows, by PostgreSQL's estimate after ANALYZE): word
// counts come from the column's statistics and only candidates are ranked (lexical-plan.ts).
const ROWS = 12_000;
const FILLER = ['river', 'stone', 'garden', 'window', 'market', 'winter', 'letter', 'silver'];

const logger: Logger = { debug() {}, info() {}, error() {}, warn() {} };
const index = 'large';

/** Row i: three filler words, the first in every row; a few rows also hold rarer words, and some are tagged. */
function text(i: number): string {
  const words = [FILLER[0], FILLER[1 + (i % 7)], FILLER[1 + ((i * 3) % 7)]];
  if (i % 1000 === 999) words.push('lighthouse');
  if (i === 11_998) words.push('lighthouse', 'keeper', 'river');
  if (i === 11_999) words.push('keeper');
  return words.join(' ');
}

let pglite: PGlite | undefined;
afterAll(async () => pglite?.close());
const real = realDatabaseOfFile('lexical search on more than 10,000 rows');
const backends: Array<[string, string | false, () => Promise<Pick<PostgresMemoryDbOptions, 'pglite' | 'pool'>>]> = [
  ['PGlite in process', false, async () => ({ pglite: (pglite = await freshPglite()) })],
  ['a real server, KM_TEST_POSTGRES_URL', NO_REAL_POSTGRES, async () => ({ pool: (await real()).pool })],
];

for (const [name, skip, open] of backends) {
  describe.skipIf(skip)(`on ${name}`, () => {
    let connection: Pick<PostgresMemoryDbOptions, 'pglite' | 'pool'>;
    beforeAll(async () => {
      connection = await open();
      const db = new PostgresMemoryDb({ ...connection, logger });
      function* records(): Iterable<MemoryRecord> {
        for (let i = 0; i < ROWS; i++) {
          yield {
            id: `r${String(i).padStart(5, '0')}`,
            vector: [1, 0, (i % 10) / 10],
            tags: { g: [String(i % 100)] },
            payload: { text: text(i) },
          };
        }
      }
      // bulkImport analyses the table at the end: the statistics the search reads exist.
      const report = await db.bulkImport(index, records(), { batchSize: 2000 });
      expect(report.records).toBe(ROWS);
    }, 120_000);

    const search = (db: PostgresMemoryDb, query: string, limit = 10, filter?: string) =>
      collect(
        db.getSimilarList(index, query, { mode: 'lexical', limit, ...(filter ? { filters: [MemoryFilters.byTag('g', filter)] } : {}) }),
      );
    const ids = (hits: Array<[MemoryRecord, number]>) => hits.map(([r]) => r.id);

    describe('Postgres lexical search on a table of more than 10,000 rows', () => {
      it('ranks the rows holding every word and the rare words first, as ranking every matching row does', async () => {
        const bounded = await search(new PostgresMemoryDb({ ...connection, logger }), 'river stone lighthouse keeper');
        const every = await search(
          new PostgresMemoryDb({ ...connection, logger, lexicalCandidates: Number.POSITIVE_INFINITY }),
          'river stone lighthouse keeper',
        );
        expect(ids(bounded).slice(0, 2)).toEqual(['r11998', 'r11999']);
        expect(ids(bounded)).toEqual(ids(every));
        expect(bounded.map(([, s]) => s)).toEqual(every.map(([, s]) => s));
      });

      it('ranks at most lexicalCandidates rows (8 × the limit at least) when the words are in more rows; Infinity ranks every matching row', async () => {
        // "river" is in every row, twice in r11998 (the best row), which comes last in the table.
        const small = new PostgresMemoryDb({ ...connection, logger, lexicalCandidates: 50 });
        const every = new PostgresMemoryDb({ ...connection, logger, lexicalCandidates: Number.POSITIVE_INFINITY });
        const [bounded, all] = [await search(small, 'river', 20), await search(every, 'river', 20)];
        expect(ids(all)[0]).toBe('r11998');
        // 160 candidates (8 × 20), the first rows the GIN index gives: the last row is not among them.
        expect(bounded).toHaveLength(20);
        expect(ids(bounded)).not.toContain('r11998');
        // Among its candidates it ranks as ranking every row does: the same ties, in key order.
        expect(ids(bounded).slice(0, 19)).toEqual(ids(all).slice(1));
      });

      it('applies a filter while picking candidates: a 1% tag filter still finds its rows holding the words', async () => {
        const hits = await search(new PostgresMemoryDb({ ...connection, logger }), 'river lighthouse', 10, '99');
        // Rows 999, 1999, … 11999 hold "lighthouse" and are tagged g:99 (i % 100 = 99).
        expect(ids(hits).slice(0, 5)).toEqual(['r00999', 'r01999', 'r02999', 'r03999', 'r04999']);
        expect(hits.every(([r]) => r.tags.g?.[0] === '99')).toBe(true);
      });

      it('under a filter, fills the limit from rows holding any word when the AND tiers find fewer distinct rows than the limit', async () => {
        // 12 rows hold "lighthouse" and are tagged g:99; "river" is in every row, far past ten budgets.
        const db = new PostgresMemoryDb({ ...connection, logger, lexicalCandidates: 50 });
        const hits = await search(db, 'river lighthouse', 20, '99');
        expect(hits).toHaveLength(20);
        expect(ids(hits).slice(0, 12).sort()).toEqual(Array.from({ length: 12 }, (_, k) => `r${String(k * 1000 + 999).padStart(5, '0')}`));
        expect(hits.every(([r]) => r.tags.g?.[0] === '99')).toBe(true);
      });

      it('a word in no row is left out; a question of such words only finds nothing', async () => {
        const db = new PostgresMemoryDb({ ...connection, logger });
        expect(await search(db, 'zeppelin')).toEqual([]);
        expect(ids(await search(db, 'zeppelin keeper')).sort()).toEqual(['r11998', 'r11999']);
      });
    });
  });
}
