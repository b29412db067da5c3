import { describe, expect, it } from 'vitest';
import { Document, MemoryFilter, MemoryFilters, normalizeIndexName, validateDocumentId } from '../src/index.js';
import { parseTag, validateTags } from '../src/connector.js';
import { thrownCode } from './helpers.js';

describe('normalizeIndexName', () => {
  it('trims, lower-cases and turns separators into dashes; empty means default', () => {
    expect(normalizeIndexName('  My Index ')).toBe('my-index');
    expect(normalizeIndexName('a\\b/c.d_e:f')).toBe('a-b-c-d-e-f');
    expect(normalizeIndexName('')).toBe('default');
    expect(normalizeIndexName('   ')).toBe('default');
    expect(normalizeIndexName(undefined)).toBe('default');
  });

  it.each(['bad*name', "x'y", 'semi;colon', 'café', '---', 'a'.repeat(129), 'pct%'])('refuses %j', (name) => {
    expect(thrownCode(() => normalizeIndexName(name))).toBe('invalid_index_name');
  });
});

describe('validateDocumentId', () => {
  it('accepts letters, digits, dot, underscore and dash', () => {
    expect(validateDocumentId('Doc_1.v2-final')).toBe('Doc_1.v2-final');
  });

  it.each(['a/b', '.', '..', 'a..b', '../etc', 'a\\b', 'with space', 'ä', '', 'x'.repeat(257), 'a:b'])('refuses %j', (id) => {
    expect(thrownCode(() => validateDocumentId(id))).toBe('invalid_document_id');
  });
});

describe('tags', () => {
  it('parses key:value with colons in the value', () => {
    expect(parseTag('url:http://x:80/y')).toEqual(['url', 'http://x:80/y']);
  });

  it('refuses a tag without colon, a reserved key, and non-string values', () => {
    expect(thrownCode(() => parseTag('nocolon'))).toBe('invalid_tag');
    expect(thrownCode(() => parseTag('__document_id:x'))).toBe('invalid_tag');
    expect(thrownCode(() => validateTags({ user: [42] }))).toBe('invalid_tag');
    expect(thrownCode(() => new Document('d').addTag('__synth', 'x'))).toBe('invalid_tag');
  });

  it('keeps several values of one key, without duplicates', () => {
    expect(validateTags({ user: ['a', 'b', 'a'], one: 'x' })).toEqual({ user: ['a', 'b'], one: ['x'] });
  });
});

describe('MemoryFilter', () => {
  it('is immutable and chains AND conditions', () => {
    const base = MemoryFilters.byTag('a', '1');
    const both = base.byTag('b', '2').notTag('c', '3');
    expect(base.conditions).toHaveLength(1);
    expect(both.conditions).toEqual([
      { key: 'a', value: '1', negated: false },
      { key: 'b', value: '2', negated: false },
      { key: 'c', value: '3', negated: true },
    ]);
  });

  it('reads and writes the wire form, with ! for NOT', () => {
    const f = MemoryFilter.fromJSON({ user: ['a', 'b'], '!type': ['draft'] });
    expect(f.conditions).toHaveLength(3);
    expect(f.toJSON()).toEqual({ user: ['a', 'b'], '!type': ['draft'] });
  });

  it('refuses a reserved tag written wrong, and malformed filters', () => {
    expect(thrownCode(() => MemoryFilters.byTag('__document', 'x'))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilters.byTag('__Document_Id', 'x'))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilter.fromJSON(['x']))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilter.fromJSON({ user: [1] }))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilters.byTag('a:b', 'x'))).toBe('invalid_filter');
  });

  it('refuses NUL characters and lone surrogates in filter keys and values, which no backend can match', () => {
    expect(thrownCode(() => MemoryFilters.byTag('user', 'a\u0000b'))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilters.byTag('user', 'a\ud800'))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilter.fromJSON({ 'us\u0000er': ['x'] }))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilter.fromJSON({ '!user': ['\udc00'] }))).toBe('invalid_filter');
    expect(thrownCode(() => MemoryFilters.byTag('user', 'caf\u00e9 \ud83d\ude00'))).toBeUndefined();
  });
});
