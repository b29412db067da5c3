import type { PGlite } from '@electric-sql/pglite';
import { isKmError } from '@km/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentStatements } from '../src/content-storage/content-statements.js';
import { PostgresContentStorage } from '../src/index.js';
import { realDatabaseOfFile } from './real-postgres.js';
import { type SqlBackend, sqlBackends } from './sql-backends.js';
import { freshPglite } from './fresh-pglite.js';

// Pages of an index's document ids (`listDocumentsAfter`) on PGlite and, with
// KM_TEST_POSTGRES_URL, on a real server: what a page holds, and how PostgreSQL reads it on an
// index of 10,000 documents (its plan, asked with EXPLAIN).
let pglite: PGlite;
beforeAll(async () => {
  pglite = await freshPglite();
});
afterAll(async () => pglite.close());

const real = realDatabaseOfFile('content storage paging', { vector: false });
let prefixes = 0;

/** A plan node of `EXPLAIN (FORMAT JSON)`, as far as these cases read it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

for (const [name, skip, open] of sqlBackends(() => pglite, real)) {
  describe.skipIf(skip)(`listDocumentsAfter on ${name}`, () => {
    let backend: SqlBackend;
    beforeAll(async () => {
      backend = await open();
    });
    const fresh = () => {
      const prefix = `page${++prefixes}_`;
      return { prefix, storage: new PostgresContentStorage({ ...backend.connection, tablePrefix: prefix }) };
    };

    it('gives the ids after a given one in byte order, each once, at most limit of them', async () => {
      const { storage } = fresh();
      for (const id of ['b', 'a.1', 'B', '_x', 'a-1', 'a', '0']) await storage.writeFile('docs', id, 'f.txt', id);
      await storage.writeFile('docs', 'a', 'g.txt', 'second file');
      await storage.writeFile('other', 'a0', 'f.txt', 'another index');
      expect(await storage.listDocumentsAfter('docs', undefined, 100)).toEqual(['0', 'B', '_x', 'a', 'a-1', 'a.1', 'b']);
      expect(await storage.listDocumentsAfter('docs', undefined, 2)).toEqual(['0', 'B']);
      expect(await storage.listDocumentsAfter('docs', 'B', 3)).toEqual(['_x', 'a', 'a-1']);
      expect(await storage.listDocumentsAfter('docs', 'a0', 10)).toEqual(['b']);
      expect(await storage.listDocumentsAfter('docs', 'b', 10)).toEqual([]);
      expect(await storage.listDocumentsAfter('docs', undefined, 0)).toEqual([]);
      expect(await storage.listDocumentsAfter('missing', undefined, 10)).toEqual([]);
    });

    it('refuses a limit that is no whole number and an index name that is not normalised', async () => {
      const { storage } = fresh();
      const invalid = (e: unknown) => isKmError(e, 'invalid_argument');
      await expect(storage.listDocumentsAfter('docs', undefined, -1)).rejects.toSatisfy(invalid);
      await expect(storage.listDocumentsAfter('docs', undefined, 1.5)).rejects.toSatisfy(invalid);
      await expect(storage.listDocumentsAfter('Docs', undefined, 10)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    });

    it('reads a page of 10,000 documents through the document-id index, never the chunks', async () => {
      const { prefix, storage } = fresh();
      await storage.writeFile('docs', 'seed', 'f.txt', 'creates the tables');
      // 10,000 documents of two files each, and another index of 10,000, written behind the storage's back.
      await backend.exec(
        `INSERT INTO "${prefix}files" (index_name, document_id, name, size, chunk_size, version)
         SELECT ix, 'doc-' || lpad(n::text, 5, '0'), f, 10, 1024, n
         FROM generate_series(1, 10000) n, unnest(ARRAY['a.txt', '..km.state.json']) f, unnest(ARRAY['docs', 'other']) ix;
         ANALYZE "${prefix}files"`,
      );
      const page = await storage.listDocumentsAfter('docs', 'doc-04999', 100);
      expect(page).toHaveLength(100);
      expect(page[0]).toBe('doc-05000');
      expect(page.at(-1)).toBe('doc-05099');

      const sql = new ContentStatements('public', prefix);
      const { rows } = await backend.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql.listDocumentsAfter()}`, [
        'docs',
        'doc-04999',
        101,
      ]);
      const raw = rows[0]!['QUERY PLAN'];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
      const nodes = nodesOf(plan[0]!.Plan);
      const scans = nodes.filter((n) => n['Relation Name'] !== undefined);
      expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
        [expect.stringMatching(/^Index (Only )?Scan$/), `${prefix}files_doc_ids`],
      ]);
      expect(nodes.some((n) => n['Node Type'] === 'Sort')).toBe(false);
      expect(scans.some((n) => n['Relation Name'] === `${prefix}file_chunks`)).toBe(false);
    });
  });
}
