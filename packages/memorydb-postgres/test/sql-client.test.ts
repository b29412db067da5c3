import { describe, expect, it } from 'vitest';
import { clientFromPool, type PgPoolClientLike, type PgPoolLike } from '../src/sql-client.js';

/** A pool of one fake connection whose queries fail as `fail` says. */
function fakePool(fail: (text: string) => Error | undefined) {
  const statements: string[] = [];
  const releases: unknown[] = [];
  const connection: PgPoolClientLike = {
    query: async (text: string) => {
      statements.push(text);
      const error = fail(text);
      if (error) throw error;
      return { rows: [] };
    },
    release: (error?: Error | boolean) => void releases.push(error),
  };
  const pool: PgPoolLike = { query: async () => ({ rows: [] }), connect: async () => connection, end: async () => undefined };
  return { pool, statements, releases };
}

describe('a transaction on a pg pool', () => {
  it('whose statement got no answer (query_timeout) drops its connection without queueing a ROLLBACK behind it', async () => {
    const timeout = new Error('Query read timeout');
    const { pool, statements, releases } = fakePool((text) => (text.startsWith('SELECT') ? timeout : undefined));
    await expect(clientFromPool(pool, false).transaction((tx) => tx.query('SELECT 1'))).rejects.toBe(timeout);
    expect(statements).toEqual(['BEGIN', 'SELECT 1']);
    expect(releases).toEqual([true]);
  });

  it('that failed on a working connection rolls back and returns the connection', async () => {
    const syntax = Object.assign(new Error('syntax error'), { code: '42601' });
    const { pool, statements, releases } = fakePool((text) => (text.startsWith('SELEC') ? syntax : undefined));
    await expect(clientFromPool(pool, false).transaction((tx) => tx.query('SELEC 1'))).rejects.toBe(syntax);
    expect(statements).toEqual(['BEGIN', 'SELEC 1', 'ROLLBACK']);
    expect(releases).toEqual([undefined]);
  });
});
