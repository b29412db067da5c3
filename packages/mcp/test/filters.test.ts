import { isKmError, matchesFilters, type TagCollection } from '@km/core';
import { describe, expect, it } from 'vitest';
import { memoryFiltersOf, tagCollectionOf } from '../src/filters.js';

const records: Record<string, TagCollection> = {
  a: { user: ['alice'], type: ['news'] },
  b: { user: ['bob'], type: ['news', 'tech'] },
  c: { user: ['alice'], type: ['draft'] },
  d: {},
};

const matching = (filters: unknown) =>
  Object.entries(records)
    .filter(([, tags]) => matchesFilters(tags, memoryFiltersOf(filters as never)))
    .map(([id]) => id);

describe('memoryFiltersOf', () => {
  it('matches everything without filters', () => {
    expect(matching(undefined)).toEqual(['a', 'b', 'c', 'd']);
    expect(matching([])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('ANDs the keys of one object and ORs the objects', () => {
    expect(matching([{ user: 'alice' }])).toEqual(['a', 'c']);
    expect(matching([{ user: 'alice', type: 'news' }])).toEqual(['a']);
    expect(matching([{ user: 'alice', type: 'news' }, { user: 'bob' }])).toEqual(['a', 'b']);
  });

  it('requires every value of a list', () => {
    expect(matching([{ type: ['news', 'tech'] }])).toEqual(['b']);
  });

  it('excludes with a "!" key; a record without the tag is kept', () => {
    expect(matching([{ '!user': 'alice' }])).toEqual(['b', 'd']);
    expect(matching([{ type: 'news', '!user': 'bob' }])).toEqual(['a']);
  });

  it('refuses keys no record can hold', () => {
    for (const bad of [[{ __secret: 'x' }], [{ 'a:b': 'x' }], [{ '': 'x' }]]) {
      let error: unknown;
      try {
        memoryFiltersOf(bad as never);
      } catch (e) {
        error = e;
      }
      expect(isKmError(error, 'invalid_filter'), JSON.stringify(bad)).toBe(true);
    }
  });
});

describe('tagCollectionOf', () => {
  it('makes every value a list', () => {
    expect(tagCollectionOf({ user: 'alice', type: ['a', 'b'] })).toEqual({ user: ['alice'], type: ['a', 'b'] });
    expect(tagCollectionOf(undefined)).toBeUndefined();
  });
});
