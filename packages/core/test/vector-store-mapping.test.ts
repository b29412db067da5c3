import { describe, expect, it } from 'vitest';
import { checkVectorValue, fromStorageRecord, isBetter, passesMinScore, toStorageRecord, vectorScore } from '../src/connector.js';
import { defineRecord, isKmError } from '../src/index.js';

const Doc = defineRecord({
  key: { name: 'id', storageName: 'doc_id' },
  data: {
    title: { type: 'string', storageName: 'doc_title' },
    pages: { type: 'integer', optional: true },
    score: { type: 'number', optional: true },
    draft: { type: 'boolean', optional: true },
    written: { type: 'date', optional: true },
    tags: { type: 'string[]', optional: true },
    sizes: { type: 'number[]', optional: true },
  },
  vectors: {
    titleVector: { dimensions: 3, embed: 'title', storageName: 'title_vec' },
    extra: { dimensions: 2, distance: 'dot', optional: true },
  },
});

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isKmError(e, 'invalid_argument')) return e.message;
    throw new Error(`expected invalid_argument, got ${String(e)}`);
  }
  throw new Error('expected invalid_argument, nothing was thrown');
}

describe('toStorageRecord', () => {
  it('maps to storage names, dates to Date, vectors to Float32Array, missing optional values to null', () => {
    const tags = ['a'];
    const mapped = toStorageRecord(Doc, { id: 'd1', title: 'T', written: '2026-11-27', tags, titleVector: [1, 0, 0] });
    expect(mapped.key).toBe('d1');
    expect(mapped.toEmbed).toEqual([]);
    expect(mapped.storage).toEqual({
      doc_id: 'd1',
      doc_title: 'T',
      pages: null,
      score: null,
      draft: null,
      written: new Date(Date.UTC(2026, 10, 27)),
      tags: ['a'],
      sizes: null,
      title_vec: new Float32Array([1, 0, 0]),
    });
    expect('extra' in mapped.storage).toBe(false);
    expect(mapped.storage.tags).not.toBe(tags);
  });

  it('copies a Float32Array vector instead of keeping the caller buffer', () => {
    const vector = new Float32Array([0, 1, 0]);
    const mapped = toStorageRecord(Doc, { id: 'd1', title: 'T', titleVector: vector });
    vector[0] = 9;
    expect(mapped.storage.title_vec).toEqual(new Float32Array([0, 1, 0]));
  });

  it('leaves a missing vector to embed when its source holds text', () => {
    const mapped = toStorageRecord(Doc, { id: 'd1', title: 'Text' });
    expect(mapped.toEmbed.map((v) => v.name)).toEqual(['titleVector']);
    expect('title_vec' in mapped.storage).toBe(false);
  });

  it('lowercases uuid keys', () => {
    const ByUuid = defineRecord({ key: { name: 'id', type: 'uuid' }, vectors: { v: { dimensions: 1 } } });
    expect(toStorageRecord(ByUuid, { id: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', v: [1] }).key).toBe(
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    );
  });

  it.each([
    ['a missing key', { title: 'T', titleVector: [1, 0, 0] }, 'no key id'],
    ['an empty key', { id: '', title: 'T', titleVector: [1, 0, 0] }, 'is empty'],
    ['a key of 513 bytes', { id: 'é'.repeat(256) + 'x', title: 'T', titleVector: [1, 0, 0] }, '512 UTF-8 bytes'],
    ['a key with NUL', { id: 'a\u0000', title: 'T', titleVector: [1, 0, 0] }, 'NUL'],
    ['a number key for a string key', { id: 1, title: 'T', titleVector: [1, 0, 0] }, 'is not a string'],
    ['a missing required value', { id: 'd', titleVector: [1, 0, 0] }, 'no title, which is required'],
    ['an unknown property', { id: 'd', title: 'T', titleVector: [1, 0, 0], colour: 'red' }, 'does not know: colour'],
    ['a storage name used as a property', { id: 'd', title: 'T', titleVector: [1, 0, 0], doc_title: 'x' }, 'doc_title'],
    ['a wrong type', { id: 'd', title: 'T', titleVector: [1, 0, 0], pages: '3' }, 'pages must be a safe integer'],
    ['a fraction for an integer', { id: 'd', title: 'T', titleVector: [1, 0, 0], pages: 1.5 }, 'pages'],
    ['NaN for a number', { id: 'd', title: 'T', titleVector: [1, 0, 0], score: Number.NaN }, 'score must be a finite number'],
    ['a bad date', { id: 'd', title: 'T', titleVector: [1, 0, 0], written: '2026-02-30' }, 'written'],
    ['a non-string tag', { id: 'd', title: 'T', titleVector: [1, 0, 0], tags: ['a', 2] }, 'tags[1]'],
    ['a lone surrogate', { id: 'd', title: '\ud800', titleVector: [1, 0, 0] }, 'lone surrogate'],
    ['a vector of the wrong size', { id: 'd', title: 'T', titleVector: [1, 0] }, 'has 2 dimensions; titleVector has 3'],
    ['a non-finite vector', { id: 'd', title: 'T', titleVector: [1, Number.NaN, 0] }, 'non-finite component at 1'],
    ['a vector overflowing float32', { id: 'd', title: 'T', titleVector: [1e39, 0, 0] }, 'non-finite component at 0'],
    ['a zero vector for cosine', { id: 'd', title: 'T', titleVector: [0, 0, 0] }, 'all zeros'],
    ['a vector that is not an array', { id: 'd', title: 'T', titleVector: 'x' }, 'Float32Array'],
  ])('refuses %s', (_, record, says) => {
    expect(refusal(() => toStorageRecord(Doc, record, 'record 7'))).toContain(says);
  });

  it('names the record in its messages', () => {
    expect(refusal(() => toStorageRecord(Doc, { id: 'd', titleVector: [1, 0, 0] }, 'record 7'))).toContain('record 7');
  });

  it('refuses a missing vector without a source or with an empty source', () => {
    const NoSource = defineRecord({ key: 'id', vectors: { v: { dimensions: 2 } } });
    expect(refusal(() => toStorageRecord(NoSource, { id: 'a' }))).toContain('no vector v');
    const OptionalSource = defineRecord({
      key: 'id',
      data: { text: { type: 'string', optional: true } },
      vectors: { v: { dimensions: 2, embed: 'text' } },
    });
    expect(refusal(() => toStorageRecord(OptionalSource, { id: 'a', text: null }))).toContain('its source text holds no text');
  });

  it('accepts a zero vector for dot and euclidean', () => {
    expect(toStorageRecord(Doc, { id: 'd', title: 'T', titleVector: [1, 0, 0], extra: [0, 0] }).storage.extra).toEqual(new Float32Array(2));
  });
});

describe('fromStorageRecord', () => {
  const stored = {
    doc_id: 'd1',
    doc_title: 'T',
    pages: 3,
    score: null,
    written: new Date(Date.UTC(2026, 0, 1)),
    tags: ['a'],
    title_vec: new Float32Array([1, 0, 0]),
  };

  it('maps back to property names, null for missing values, vectors only when asked', () => {
    const record = fromStorageRecord(Doc, stored, false) as Record<string, unknown>;
    expect(record).toEqual({
      id: 'd1',
      title: 'T',
      pages: 3,
      score: null,
      draft: null,
      written: new Date(Date.UTC(2026, 0, 1)),
      tags: ['a'],
      sizes: null,
    });
    expect(record.tags).not.toBe(stored.tags);
    expect('titleVector' in record).toBe(false);
  });

  it('returns vector copies when asked, null for a vector not stored', () => {
    const record = fromStorageRecord(Doc, stored, true) as Record<string, unknown>;
    expect(record.titleVector).toEqual(new Float32Array([1, 0, 0]));
    expect(record.titleVector).not.toBe(stored.title_vec);
    expect(record.extra).toBeNull();
  });

  it('reads dates a store returns as ISO strings or epoch milliseconds as Date', () => {
    expect((fromStorageRecord(Doc, { ...stored, written: '2026-01-01T00:00:00Z' }, false) as { written: Date }).written).toEqual(
      new Date(Date.UTC(2026, 0, 1)),
    );
    expect((fromStorageRecord(Doc, { ...stored, written: Date.UTC(2026, 0, 1) }, false) as { written: Date }).written).toEqual(
      new Date(Date.UTC(2026, 0, 1)),
    );
  });

  it('reads integer keys a store returns as strings or bigints as numbers', () => {
    const ByNumber = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 1 } } });
    expect(fromStorageRecord(ByNumber, { n: '42' }, false)).toEqual({ n: 42 });
    expect(fromStorageRecord(ByNumber, { n: 42n }, false)).toEqual({ n: 42 });
  });

  it('round-trips a record', () => {
    const record = { id: 'd9', title: 'Round', pages: 1, score: 0.5, draft: true, written: new Date(5), tags: [], sizes: [1.5] };
    const back = fromStorageRecord(Doc, toStorageRecord(Doc, { ...record, titleVector: [0, 0, 1] }).storage, false);
    expect(back).toEqual(record);
  });
});

describe('checkVectorValue', () => {
  it('accepts Float64Array and returns a Float32Array', () => {
    expect(checkVectorValue(Doc.vectors[0]!, new Float64Array([1, 2, 3]), 'q')).toEqual(new Float32Array([1, 2, 3]));
  });
});

describe('vector scores', () => {
  it('computes cosine similarity, dot product and Euclidean distance', () => {
    expect(vectorScore('cosine', [1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(vectorScore('cosine', [1, 0], [-2, 0])).toBe(-1);
    expect(vectorScore('cosine', [0, 0], [1, 0])).toBe(0);
    expect(vectorScore('dot', [1, 2], [3, 4])).toBe(11);
    expect(vectorScore('euclidean', new Float32Array([0, 0]), [3, 4])).toBe(5);
  });

  it('orders higher first for cosine and dot, lower first for euclidean', () => {
    expect(isBetter('cosine', 0.9, 0.1)).toBe(true);
    expect(isBetter('dot', -1, 2)).toBe(false);
    expect(isBetter('euclidean', 0.5, 2)).toBe(true);
    expect(isBetter('euclidean', 2, 2)).toBe(false);
  });

  it('keeps scores at or above minScore for cosine and dot, at or below for euclidean', () => {
    expect(passesMinScore('cosine', 0.5, 0.5)).toBe(true);
    expect(passesMinScore('cosine', 0.49, 0.5)).toBe(false);
    expect(passesMinScore('dot', 3, 2)).toBe(true);
    expect(passesMinScore('euclidean', 0.5, 0.5)).toBe(true);
    expect(passesMinScore('euclidean', 0.6, 0.5)).toBe(false);
    expect(passesMinScore('euclidean', 99, undefined)).toBe(true);
  });
});
