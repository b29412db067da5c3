import { MATCH_ALL_FILTERS } from '@km/conformance';
import { MemoryFilters } from '@km/core';
import { describe, expect, it } from 'vitest';
import { toQdrantFilter } from '../src/index.js';

// Shapes from Qdrant's filtering docs: `must` / `should` / `must_not` clauses of field
// conditions `{ key, match: { value } }` or `{ key, match: { any: [...] } }`, and nested filters
// as conditions ("clauses combination").
describe('toQdrantFilter', () => {
  it('no filter, an empty list or an empty filter match everything (no Qdrant filter at all)', () => {
    for (const filters of MATCH_ALL_FILTERS) expect(toQdrantFilter(filters)).toBeUndefined();
  });

  it('one equality is a must with match.value on the key:value tag', () => {
    expect(toQdrantFilter([MemoryFilters.byTag('user', 'alice')])).toEqual({ must: [{ key: 'tags', match: { value: 'user:alice' } }] });
  });

  it('AND inside a filter: every equality is its own must condition, so all values of a key are required', () => {
    expect(toQdrantFilter([MemoryFilters.byTag('user', 'alice').byTag('user', 'bob').byTag('type', 'news')])).toEqual({
      must: [
        { key: 'tags', match: { value: 'user:alice' } },
        { key: 'tags', match: { value: 'user:bob' } },
        { key: 'tags', match: { value: 'type:news' } },
      ],
    });
  });

  it('NOT conditions are one must_not with match.any (none of them present)', () => {
    expect(toQdrantFilter([MemoryFilters.byTag('type', 'news').notTag('user', 'alice').notTag('user', 'bob')])).toEqual({
      must: [{ key: 'tags', match: { value: 'type:news' } }],
      must_not: [{ key: 'tags', match: { any: ['user:alice', 'user:bob'] } }],
    });
    expect(toQdrantFilter([MemoryFilters.notTag('user', 'alice')])).toEqual({
      must_not: [{ key: 'tags', match: { any: ['user:alice'] } }],
    });
  });

  it('OR across filters is a should of nested filters', () => {
    expect(toQdrantFilter([MemoryFilters.byDocument('doc-3').notTag('type', '50%'), MemoryFilters.byTag('user', 'ALICE')])).toEqual({
      should: [
        { must: [{ key: 'tags', match: { value: '__document_id:doc-3' } }], must_not: [{ key: 'tags', match: { any: ['type:50%'] } }] },
        { must: [{ key: 'tags', match: { value: 'user:ALICE' } }] },
      ],
    });
  });

  it('a null value matches the bare key; hostile values stay opaque JSON strings', () => {
    const hostile = `x"}]},{"key":"tags","match":{"any":[]}} ; DROP`;
    const filter = toQdrantFilter([MemoryFilters.byTag('flag', null).byTag('user', hostile)]);
    expect(filter).toEqual({
      must: [
        { key: 'tags', match: { value: 'flag' } },
        { key: 'tags', match: { value: `user:${hostile}` } },
      ],
    });
    // The value round-trips through the request body unchanged.
    expect(JSON.parse(JSON.stringify(filter))).toEqual(filter);
  });

  it('repeated conditions are sent once', () => {
    expect(toQdrantFilter([MemoryFilters.byTag('a', '1').byTag('a', '1')])).toEqual({ must: [{ key: 'tags', match: { value: 'a:1' } }] });
  });
});
