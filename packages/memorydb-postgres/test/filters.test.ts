import { MemoryFilter, MemoryFilters } from '@km/core';
import { describe, expect, it } from 'vitest';
import { quoteIdent } from '../src/identifiers.js';
import { toSqlCondition } from '../src/index.js';

describe('toSqlCondition', () => {
  it('no filter, or an empty filter, is TRUE with no parameter', () => {
    expect(toSqlCondition([], '"tags"', 1)).toEqual({ sql: 'TRUE', params: [] });
    expect(toSqlCondition([new MemoryFilter(), MemoryFilters.byTag('a', 'b')], '"tags"', 1)).toEqual({ sql: 'TRUE', params: [] });
  });

  it('AND of equalities is one containment; NOT is a negated overlap; filters are OR-ed', () => {
    const condition = toSqlCondition(
      [MemoryFilters.byTag('user', 'a').byTag('user', 'b').notTag('type', 'draft'), MemoryFilters.byDocument('d1')],
      '"tags"',
      4,
    );
    expect(condition.sql).toBe('(("tags" @> $4::text[] AND NOT ("tags" && $5::text[])) OR ("tags" @> $6::text[]))');
    expect(condition.params).toEqual([['user:a', 'user:b'], ['type:draft'], ['__document_id:d1']]);
  });

  it('a filter of NOT conditions only has no containment', () => {
    expect(toSqlCondition([MemoryFilters.notTag('k', 'v')], 't', 1)).toEqual({ sql: '((NOT (t && $1::text[])))', params: [['k:v']] });
  });

  it('values never reach the SQL text', () => {
    const evil = "x'); DROP TABLE users; --";
    const condition = toSqlCondition([MemoryFilters.byTag('user', evil)], '"tags"', 1);
    expect(condition.sql).not.toContain('DROP');
    expect(condition.params).toEqual([[`user:${evil}`]]);
  });
});

describe('quoteIdent', () => {
  it('doubles quotes and refuses identifiers PostgreSQL would truncate', () => {
    expect(quoteIdent('km-my"index')).toBe('"km-my""index"');
    expect(() => quoteIdent('x'.repeat(64))).toThrow(/63 bytes/);
  });
});
