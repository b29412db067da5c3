import type { PGlite } from '@electric-sql/pglite';
import { isKmError, type Logger, type MemoryFilter, MemoryFilters, type MemoryRecord } from '@km/core';
import { collect } from '@km/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb, type PostgresMemoryDbOptions, postgresMemoryDbFactory } from '../src/index.js';
import { startPgliteServer } from '../src/testing.js';
import { realDatabaseOfFile } from './real-postgres.js';
import { type SqlBackend, sqlBackends } from './sql-backends.js';
import { freshPglite } from './fresh-pglite.js';

let pglite: PGlite;
const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) };
let counter = 0;
const fresh = () => `lex-${++counter}`;

beforeAll(async () => {
  pglite = await freshPglite();
});
afterAll(async () => pglite.close());

const real = realDatabaseOfFile('the lexical search cases');
const backends = sqlBackends(() => pglite, real);

async function seed(db: PostgresMemoryDb, index: string, docs: Array<[string, string, Record<string, string[]>?]>) {
  await db.createIndex(index, 3);
  await db.upsertBatch(
    index,
    docs.map(([id, text, tags]) => ({ id, vector: [1, 0, 0], tags: tags ?? {}, payload: { text } })),
  );
}

interface LexicalOptions {
  filters?: MemoryFilter[];
  limit?: number;
  withEmbeddings?: boolean;
}
function search(db: PostgresMemoryDb, index: string, text: string, more: LexicalOptions = {}) {
  return collect(db.getSimilarList(index, text, { mode: 'lexical', text, limit: 10, ...more }));
}
const ids = (hits: Array<[MemoryRecord, number]>) => hits.map(([r]) => r.id);

for (const [name, skip, open] of backends) {
  describe.skipIf(skip)(`Postgres lexical search (${name})`, () => {
    let backend: SqlBackend;
    beforeAll(async () => {
      backend = await open();
    });
    const driverOf = (options: Partial<PostgresMemoryDbOptions> = {}) =>
      new PostgresMemoryDb({ ...backend.connection, logger, ...options });

    it('matches any query word (OR), ranks passages with more query words first, scores in [0, 1) and breaks ties by id', async () => {
      const driver = driverOf();
      const index = fresh();
      await seed(driver, index, [
        ['one', 'The harbour has many boats.'],
        ['both', 'Boats in the harbour wait for the storm.'],
        ['none', 'A quiet mountain village.'],
        ['tie-b', 'A storm is coming.'],
        ['tie-a', 'A storm is coming.'],
      ]);
      const hits = await search(driver, index, 'Which boats wait in the harbour during a storm?');
      expect(ids(hits)).toEqual(['both', 'one', 'tie-a', 'tie-b']);
      for (const [, score] of hits) expect(score > 0 && score < 1).toBe(true);
      const scores = hits.map(([, s]) => s);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect(hits[2]![1]).toBe(hits[3]![1]);
      expect(hits[0]![0].payload.text).toBe('Boats in the harbour wait for the storm.');
    });

    it('weighs a word by how few rows hold it (IDF): the passage with the rare query word outranks those with a common one', async () => {
      const driver = driverOf();
      const index = fresh();
      await seed(driver, index, [
        ['a-common', 'kettle garden'],
        ['b-common', 'kettle garden'],
        ['c-common', 'kettle garden'],
        ['z-rare', 'falcon garden'],
        ['other', 'river stone'],
      ]);
      expect(ids(await search(driver, index, 'kettle falcon'))).toEqual(['z-rare', 'a-common', 'b-common', 'c-common']);
    });

    it('stems English by default (the question says "running", the passage "runs"), ranks the shorter passage first and honours the limit', async () => {
      const driver = driverOf();
      const index = fresh();
      await seed(driver, index, [
        ['a', 'She runs every morning.'],
        ['b', 'He runs at night.'],
        ['c', 'Nothing to see.'],
      ]);
      // One match each: the rank is divided by 1 + log(length), so the shorter passage comes first.
      expect(ids(await search(driver, index, 'running'))).toEqual(['b', 'a']);
      expect(ids(await search(driver, index, 'running', { limit: 1 }))).toEqual(['b']);
    });

    it('applies filters like vector search: AND within a filter, OR across filters, NOT', async () => {
      const driver = driverOf();
      const index = fresh();
      await seed(driver, index, [
        ['ops-draft', 'deploy the service', { team: ['ops'], type: ['draft'] }],
        ['ops-final', 'deploy the service', { team: ['ops'], type: ['final'] }],
        ['dev-final', 'deploy the service', { team: ['dev'], type: ['final'] }],
        ['qa', 'deploy the service', { team: ['qa'] }],
      ]);
      const q = (filters: MemoryFilter[]) => search(driver, index, 'deploy', { filters }).then(ids);
      expect(await q([MemoryFilters.byTag('team', 'ops').byTag('type', 'final')])).toEqual(['ops-final']);
      expect(await q([MemoryFilters.byTag('team', 'ops'), MemoryFilters.byTag('team', 'qa')])).toEqual(['ops-draft', 'ops-final', 'qa']);
      expect(await q([MemoryFilters.byTag('team', 'ops').notTag('type', 'draft')])).toEqual(['ops-final']);
    });

    it('returns embeddings only when asked', async () => {
      const driver = driverOf();
      const index = fresh();
      await seed(driver, index, [['a', 'vectors too']]);
      const [[without]] = (await search(driver, index, 'vectors')) as [[MemoryRecord, number]];
      expect(without.vector.length).toBe(0);
      const [[withVector]] = (await search(driver, index, 'vectors', { withEmbeddings: true })) as [[MemoryRecord, number]];
      expect(Array.from(withVector.vector)).toEqual([1, 0, 0]);
    });

    it('stores the partition text once (in content, not again in the payload) and reads records with it, by id, listing and search', async () => {
      const driver = driverOf();
      const index = fresh();
      await seed(driver, index, [['a', 'stored only once', { k: ['v'] }]]);
      const { rows } = await backend.query<{ payload: Record<string, unknown>; content: string }>(
        `SELECT payload, content FROM "km-${index}"`,
      );
      expect(rows).toEqual([{ payload: {}, content: 'stored only once' }]);
      const [listed] = await collect(driver.getList(index, {}));
      expect(listed?.payload).toEqual({ text: 'stored only once' });
      const [[found]] = (await search(driver, index, 'stored')) as [[MemoryRecord, number]];
      expect(found.payload).toEqual({ text: 'stored only once' });
    });

    it('treats hostile text as words: quotes, tsquery operators, backslashes, unicode, very long text', async () => {
      const driver = driverOf({ textSearchConfig: 'simple' });
      const index = fresh();
      await seed(driver, index, [
        ['quote', "it's O'Brien's turn"],
        ['ops', 'cats & dogs | birds'],
        ['uni', 'héllo wörld 日本語'],
      ]);
      expect(ids(await search(driver, index, "O'Brien'); DROP TABLE x; --"))).toEqual(['quote']);
      expect(ids(await search(driver, index, "dogs & !cats | (birds) :* <-> <2> ''' \\' \\\\"))).toEqual(['ops']);
      expect(ids(await search(driver, index, 'wörld'))).toEqual(['uni']);
      expect(ids(await search(driver, index, `${'zzz '.repeat(400_000)} dogs`))).toEqual([]);
      expect(ids(await search(driver, index, `dogs ${'x'.repeat(5000)} ${'wörd '.repeat(50_000)}`))).toEqual(['ops']);
      const { rows } = await backend.query<{ n: number }>(`SELECT count(*)::int AS n FROM "km-${index}"`);
      expect(rows[0]!.n).toBe(3);
    });

    it('a query without lexemes (only stop words or punctuation) finds nothing, without an error', async () => {
      const driver = driverOf();
      const index = fresh();
      await seed(driver, index, [['a', 'the and of it']]);
      expect(await search(driver, index, 'the of and')).toEqual([]);
      expect(await search(driver, index, '&|!():*<>')).toEqual([]);
      // A blank query is refused by MemoryDb before it reaches the driver.
      await expect(search(driver, index, ' ')).rejects.toSatisfy((e) => isKmError(e, 'invalid_argument'));
    });

    it('a missing table reads as nothing', async () => {
      expect(await search(driverOf(), 'lex-missing', 'word')).toEqual([]);
    });

    const oldTable = (index: string) =>
      backend.exec(`CREATE EXTENSION IF NOT EXISTS vector;
        CREATE TABLE "km-${index}" (id TEXT PRIMARY KEY, embedding vector(3) NOT NULL, tags TEXT[] NOT NULL DEFAULT '{}',
          payload JSONB NOT NULL DEFAULT '{}', content TEXT NOT NULL DEFAULT '');
        INSERT INTO "km-${index}" VALUES ('old', '[1,0,0]', '{}', '{"text":"written before the upgrade"}', 'written before the upgrade');`);

    it('by default leaves a table from an earlier version alone: lexical search finds nothing there and one warning gives the ALTER TABLE', async () => {
      const index = fresh();
      await oldTable(index);
      warnings.length = 0;
      const driver = driverOf();
      expect(await search(driver, index, 'upgrade')).toEqual([]);
      expect(await search(driver, index, 'upgrade')).toEqual([]);
      expect(warnings.filter((w) => w.includes('has no full-text column') && w.includes('ALTER TABLE'))).toHaveLength(1);
      const { rows } = await backend.query(`SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'content_tsv'`, [
        `"km-${index}"`,
      ]);
      expect(rows).toHaveLength(0);
    });

    it('with upgradeTablesOnSearch, upgrades a table created without the full-text column on its first lexical search, existing rows included', async () => {
      const index = fresh();
      await oldTable(index);
      const [first, second] = [driverOf({ upgradeTablesOnSearch: true }), driverOf({ upgradeTablesOnSearch: true })];
      const [a, b] = await Promise.all([search(first, index, 'upgrade'), search(second, index, 'upgrade')]);
      expect(ids(a)).toEqual(['old']);
      expect(ids(b)).toEqual(['old']);
      await first.upsertBatch(index, [{ id: 'new', vector: [0, 1, 0], tags: {}, payload: { text: 'after the upgrade' } }]);
      expect(ids(await search(first, index, 'upgrade'))).toEqual(['new', 'old']);
      const { rows } = await backend.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = $1`, [`km-${index}`]);
      expect(rows.some((r) => r.indexdef.includes('gin (content_tsv)'))).toBe(true);
      const stats = await backend.query(`SELECT 1 FROM pg_stats WHERE tablename = $1 AND attname = 'content_tsv'`, [`km-${index}`]);
      expect(stats.rows).toHaveLength(1); // analysed, so a large table's word counts can come from the statistics
    });

    it('keeps the configuration a table was built with, warning once, until its column is dropped', async () => {
      const index = fresh();
      await seed(driverOf({ textSearchConfig: 'simple' }), index, [['a', 'running fast']]);
      warnings.length = 0;
      const english = driverOf({ textSearchConfig: 'english' });
      // Tokenised like the documents ("simple"): "running" matches, "run" does not.
      expect(ids(await search(english, index, 'running'))).toEqual(['a']);
      expect(ids(await search(english, index, 'run'))).toEqual([]);
      expect(warnings.filter((w) => w.includes('built with text search configuration "simple", not "english"'))).toHaveLength(1);
      await backend.exec(`ALTER TABLE "km-${index}" DROP COLUMN content_tsv`);
      const rebuilt = driverOf({ textSearchConfig: 'english', upgradeTablesOnSearch: true });
      expect(ids(await search(rebuilt, index, 'run'))).toEqual(['a']);
    });

    it('validates textSearchConfig: a malformed name at construction, an unknown one on first use, both invalid_argument', async () => {
      for (const bad of ["english'); DROP TABLE x; --", '', 'a b', '"english"', 'x.y.z']) {
        expect(() => driverOf({ textSearchConfig: bad })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
      }
      const unknown = driverOf({ textSearchConfig: 'klingon', upgradeTablesOnSearch: true });
      await expect(unknown.createIndex(fresh(), 3)).rejects.toSatisfy((e) => isKmError(e, 'invalid_argument'));
      const index = fresh();
      await backend.exec(`CREATE TABLE "km-${index}" (id TEXT PRIMARY KEY, embedding vector(3) NOT NULL, tags TEXT[] NOT NULL DEFAULT '{}',
          payload JSONB NOT NULL DEFAULT '{}', content TEXT NOT NULL DEFAULT '')`);
      await expect(search(unknown, index, 'word')).rejects.toSatisfy((e) => isKmError(e, 'invalid_argument'));
      expect(ids(await search(driverOf({ textSearchConfig: 'pg_catalog.simple', upgradeTablesOnSearch: true }), index, 'word'))).toEqual(
        [],
      );
    });
  });
}

describe('postgresMemoryDbFactory', () => {
  it('passes postgresTextSearchConfig on as textSearchConfig (a malformed one is invalid_argument)', async () => {
    const settings = { postgresUrl: 'postgres://u:p@127.0.0.1:1/km', postgresMaxConnections: 1 };
    await expect(postgresMemoryDbFactory.create({ ...settings, postgresTextSearchConfig: "english'; --" }, { logger })).rejects.toSatisfy(
      (e) => isKmError(e, 'invalid_argument'),
    );
    const db = await postgresMemoryDbFactory.create({ ...settings, postgresTextSearchConfig: 'simple' }, { logger });
    expect(db).toBeInstanceOf(PostgresMemoryDb);
    await (db as PostgresMemoryDb).close();
  });

  it('passes KM_MEMORY_DB_PREFIX (prefix) on as the table prefix; without it tables are km-{index}', async () => {
    const server = await startPgliteServer(pglite as never);
    try {
      const base = { postgresUrl: server.url, postgresMaxConnections: 1, postgresTextSearchConfig: 'english' };
      expect(postgresMemoryDbFactory.settings.find((s) => s.key === 'prefix')?.env).toEqual(['KM_MEMORY_DB_PREFIX']);
      for (const [settings, table] of [
        [{ ...base, prefix: 'tenant1_' }, 'tenant1_prefixed'],
        [base, 'km-prefixed'],
      ] as const) {
        const db = (await postgresMemoryDbFactory.create(settings, { logger })) as PostgresMemoryDb;
        try {
          await db.createIndex('prefixed', 3);
          const found = await pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_tables WHERE tablename = $1', [table]);
          expect(found.rows[0]!.n).toBe(1);
          expect(await db.getIndexes()).toContain('prefixed');
        } finally {
          await db.close();
        }
      }
    } finally {
      await server.stop();
    }
  });
});
