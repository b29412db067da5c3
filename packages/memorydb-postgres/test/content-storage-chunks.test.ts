import { isKmError } from '@km/core';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresContentStorage, type PGliteLike } from '../src/index.js';
import { freshPglite } from './fresh-pglite.js';

// How the storage uses its tables, checked on PGlite through a wrapper that records each statement.
const pglite = freshPglite();
afterAll(async () => (await pglite).close());

interface Statement {
  text: string;
  params: unknown[];
  /** The transaction it ran in (0: none). */
  tx: number;
}

let prefixes = 0;
async function recorded(chunkBytes: number) {
  const db = await pglite;
  const statements: Statement[] = [];
  let transactions = 0;
  const recorder: PGliteLike = {
    query: (text, params) => {
      statements.push({ text, params: params ?? [], tx: 0 });
      return db.query(text, params);
    },
    transaction: (fn) =>
      db.transaction((tx) => {
        const id = ++transactions;
        return fn({
          query: (text, params) => {
            statements.push({ text, params: params ?? [], tx: id });
            return tx.query(text, params);
          },
        });
      }),
  };
  const prefix = `t${++prefixes}_`;
  const storage = new PostgresContentStorage({ pglite: recorder, chunkBytes, tablePrefix: prefix });
  const count = async (table: 'files' | 'file_chunks') =>
    Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${prefix}${table}"`)).rows[0]!.n);
  const of = (kind: RegExp) => statements.filter((s) => kind.test(s.text));
  return { storage, statements, count, of, db, prefix };
}

const readAll = async (stream: AsyncIterable<unknown>) => {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
};
const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

describe('PostgresContentStorage chunks', () => {
  it('stores a streamed write as chunks of chunkBytes, inserting each before the next piece is read', async () => {
    const { storage, of } = await recorded(16);
    let insertedBeforeLastPiece = -1;
    async function* pieces() {
      for (let i = 0; i < 9; i++) yield bytes(10);
      insertedBeforeLastPiece = of(/INSERT INTO \S+file_chunks/).length;
      yield bytes(10);
    }
    expect(await storage.writeFile('idx', 'doc', 'f.bin', pieces())).toBe(100);
    const inserts = of(/INSERT INTO \S+file_chunks/);
    expect(inserts.map((s) => (s.params[5] as Buffer).length)).toEqual([16, 16, 16, 16, 16, 16, 4]);
    expect(insertedBeforeLastPiece).toBe(5); // 90 bytes read: 5 full chunks already sent, 10 bytes held
  });

  it('a range read fetches only the chunks the range covers, cut on the server', async () => {
    const { storage, of } = await recorded(16);
    const content = bytes(160);
    await storage.writeFile('idx', 'doc', 'r.bin', content);
    const read = await readAll(await storage.readFileStream('idx', 'doc', 'r.bin', { start: 20, end: 40 }));
    expect(read.equals(content.subarray(20, 41))).toBe(true);
    // chunk 1 from byte 4 (1-based 5), 12 bytes; chunk 2 whole; none else
    expect(of(/substring\(bytes/).map((s) => s.params.slice(4))).toEqual([
      [1, 5, 12],
      [2, 1, 9],
    ]);
  });

  it('a range past the end stops at the last byte; one starting past it is empty', async () => {
    const { storage } = await recorded(16);
    await storage.writeFile('idx', 'doc', 'r.bin', bytes(40));
    expect(
      (await readAll(await storage.readFileStream('idx', 'doc', 'r.bin', { start: 30, end: 1000 }))).equals(bytes(40).subarray(30)),
    ).toBe(true);
    expect((await readAll(await storage.readFileStream('idx', 'doc', 'r.bin', { start: 40, end: 50 }))).length).toBe(0);
    await expect(storage.readFileStream('idx', 'doc', 'r.bin', { start: 5, end: 4 })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_argument'),
    );
  });

  it('an empty file is stored without chunks and reads back empty', async () => {
    const { storage, count } = await recorded(16);
    expect(await storage.writeFile('idx', 'doc', 'empty.txt', '')).toBe(0);
    expect(await count('file_chunks')).toBe(0);
    expect((await storage.readFile('idx', 'doc', 'empty.txt')).length).toBe(0);
    expect((await readAll(await storage.readFileStream('idx', 'doc', 'empty.txt'))).length).toBe(0);
    expect((await storage.listFiles('idx', 'doc')).map((f) => f.size)).toEqual([0]);
  });

  it('an overwrite drops the old chunks; a failed stream leaves no row in either table', async () => {
    const { storage, count } = await recorded(16);
    await storage.writeFile('idx', 'doc', 'f.bin', bytes(100));
    await storage.writeFile('idx', 'doc', 'f.bin', bytes(20));
    expect(await count('file_chunks')).toBe(2);
    async function* failing() {
      yield bytes(50);
      throw new Error('upload cut');
    }
    await expect(storage.writeFile('idx', 'doc', 'g.bin', failing())).rejects.toThrow('upload cut');
    expect(await count('files')).toBe(1);
    expect(await count('file_chunks')).toBe(2);
  });

  it("the caller's stream error comes back as it was thrown, not as a database error", async () => {
    const { storage } = await recorded(16);
    const cut = Object.assign(new Error('ECONNRESET from the uploader'), { code: 'ECONNRESET' });
    async function* failing() {
      yield bytes(5);
      throw cut;
    }
    await expect(storage.writeFile('idx', 'doc', 'g.bin', failing())).rejects.toBe(cut);
  });

  it('a stream whose file is replaced midway fails as transient instead of mixing two versions', async () => {
    const { storage } = await recorded(16);
    await storage.writeFile('idx', 'doc', 'f.bin', Buffer.alloc(64, 1));
    const stream = await storage.readFileStream('idx', 'doc', 'f.bin');
    const iterator = stream[Symbol.asyncIterator]();
    expect(Buffer.from((await iterator.next()).value as Buffer)[0]).toBe(1);
    await storage.writeFile('idx', 'doc', 'f.bin', Buffer.alloc(64, 2));
    const rest = async () => {
      for (;;) if ((await iterator.next()).done) return;
    };
    await expect(rest()).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient') && (e as { transient: boolean }).transient);
  });

  it('deleting an index removes every file and chunk under it, a batch of 200 files per transaction, and nothing else', async () => {
    const { storage, count, of, db, prefix } = await recorded(16);
    // 450 files, inserted directly (writing each through the storage would only be slower).
    await storage.writeFile('idx', 'doc-0', 'seed.txt', 'x');
    await db.query(
      `INSERT INTO "${prefix}files" SELECT 'idx', 'doc-' || (i % 3), 'f' || i, 1, 16, 1000000 + i FROM generate_series(1, 449) i`,
    );
    await db.query(
      `INSERT INTO "${prefix}file_chunks" SELECT 'idx', 'doc-' || (i % 3), 'f' || i, 1000000 + i, 0, '\\x01' FROM generate_series(1, 449) i`,
    );
    await storage.writeFile('keep', 'doc', 'f.txt', 'stays');
    await storage.deleteIndexDirectory('idx');
    // 200, 200, 50, then a batch that finds none ends it; chunks go only for batches that deleted files.
    expect(of(/DELETE FROM \S+files"? WHERE \(index_name, document_id, name\) IN/)).toHaveLength(4);
    expect(of(/unnest/).map((s) => (s.params[2] as string[]).length)).toEqual([200, 200, 50]);
    expect(await storage.listIndexes()).toEqual(['keep']);
    expect(await count('files')).toBe(1);
    expect(await count('file_chunks')).toBe(1);
    expect((await storage.readFile('keep', 'doc', 'f.txt')).toString()).toBe('stays');
  });

  it('a batch deletes the file rows, then their chunks by the keys it got back, in a second statement of the same transaction', async () => {
    const { storage, statements, count } = await recorded(16);
    await storage.writeFile('idx', 'doc', 'a.bin', bytes(40));
    await storage.writeFile('idx', 'doc', 'b.bin', bytes(20));
    await storage.writeFile('idx', 'other', 'c.bin', bytes(20));
    const before = statements.length;
    await storage.deleteDocumentDirectory('idx', 'doc');
    const deletes = statements.slice(before).filter((s) => /^\s*DELETE/.test(s.text));
    expect(deletes.map((s) => (/file_chunks/.test(s.text) ? 'chunks' : 'files'))).toEqual(['files', 'chunks', 'files']);
    const [files, chunks, last] = deletes as [Statement, Statement, Statement];
    expect(files.text).not.toMatch(/file_chunks/);
    expect(files.params).toEqual(['idx', 200, 'doc']);
    expect(chunks.tx).toBe(files.tx);
    expect(chunks.tx).not.toBe(0);
    expect(chunks.params[0]).toBe('idx');
    const keys = (chunks.params[1] as string[]).map((d, i) => `${d}/${(chunks.params[2] as string[])[i]}`);
    expect(keys.sort()).toEqual(['doc/a.bin', 'doc/b.bin']);
    expect(last.tx).not.toBe(files.tx); // the next batch, which finds none and ends the deletion
    expect(await count('files')).toBe(1);
    expect(await count('file_chunks')).toBe(2);
  });

  it('a document is deleted alone; folders are implicit (an empty document is not listed)', async () => {
    const { storage } = await recorded(16);
    await storage.createDocumentDirectory('idx', 'empty');
    await storage.writeFile('idx', 'a', 'f.txt', 'a');
    await storage.writeFile('idx', 'b', 'f.txt', 'b');
    expect(await storage.listDocuments('idx')).toEqual(['a', 'b']);
    await storage.deleteDocumentDirectory('idx', 'a');
    expect(await storage.listDocuments('idx')).toEqual(['b']);
  });

  it('tables dropped under a running storage fail one call as transient and are created again on the next', async () => {
    const { storage, db, prefix } = await recorded(16);
    await storage.writeFile('idx', 'doc', 'f.txt', 'one');
    await db.query(`DROP TABLE "${prefix}files"`);
    await expect(storage.listIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient'));
    await storage.writeFile('idx', 'doc', 'f.txt', 'two');
    expect((await storage.readFile('idx', 'doc', 'f.txt')).toString()).toBe('two');
  });

  it('a version this storage never gave out is a conflict, checked before any statement', async () => {
    const { storage, statements } = await recorded(16);
    await storage.listIndexes();
    const before = statements.length;
    await expect(storage.writeFileIfVersion('idx', 'doc', 's.json', '{}', 'etag-"abc"')).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'write_conflict'),
    );
    expect(statements.length).toBe(before);
  });

  it('refuses names before sending anything', async () => {
    const { storage, statements } = await recorded(16);
    await expect(storage.writeFile('idx', '..', 'f', 'x')).rejects.toSatisfy((e: unknown) => isKmError(e));
    await expect(storage.deleteIndexDirectory('Bad Index')).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    expect(statements).toEqual([]);
  });
});
