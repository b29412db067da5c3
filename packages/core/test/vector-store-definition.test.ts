import { describe, expect, it } from 'vitest';
import { defineRecord, isKmError, type RecordDefinitionInput, type RecordType } from '../src/index.js';

/** The message of the KmError `fn` throws with `code`, or a failure naming what it threw instead. */
function refusal(fn: () => unknown, code = 'invalid_argument'): string {
  try {
    fn();
  } catch (e) {
    if (isKmError(e) && e.code === code) return e.message;
    throw new Error(`expected ${code}, got ${String(e)}`);
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

const vectors = { v: { dimensions: 3 } } as const;
const define = (input: unknown) => defineRecord(input as RecordDefinitionInput);

describe('defineRecord resolves a definition', () => {
  it('applies the defaults: key type string, storage names equal to names, cosine, flags false', () => {
    const d = defineRecord({ key: 'id', data: { title: { type: 'string' } }, vectors });
    expect(d.key).toEqual({ kind: 'key', name: 'id', storageName: 'id', type: 'string', storageNameGiven: false });
    expect(d.data).toEqual([
      { kind: 'data', name: 'title', storageName: 'title', type: 'string', filterable: false, fullText: false, optional: false },
    ]);
    expect(d.vectors).toEqual([
      { kind: 'vector', name: 'v', storageName: 'v', dimensions: 3, distance: 'cosine', embed: undefined, optional: false },
    ]);
    expect(d.embeddingGenerator).toBeUndefined();
  });

  it('keeps storage names, key types, distances and embed sources', () => {
    const d = defineRecord({
      key: { name: 'id', type: 'uuid', storageName: 'hotel_id' },
      data: { text: { type: 'string', storageName: 'body', filterable: true, optional: true } },
      vectors: { v: { dimensions: 4, distance: 'euclidean', embed: 'text', storageName: 'text_vec', optional: true } },
    });
    expect(d.key).toMatchObject({ storageName: 'hotel_id', type: 'uuid', storageNameGiven: true });
    expect(d.data[0]).toMatchObject({ storageName: 'body', filterable: true, optional: true });
    expect(d.vectors[0]).toMatchObject({ storageName: 'text_vec', distance: 'euclidean', embed: 'text', optional: true });
  });

  it('returns a frozen definition, down to its properties', () => {
    const d = defineRecord({ key: 'id', data: { a: { type: 'number' } }, vectors });
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.key)).toBe(true);
    expect(Object.isFrozen(d.data)).toBe(true);
    expect(Object.isFrozen(d.data[0])).toBe(true);
    expect(Object.isFrozen(d.vectors[0])).toBe(true);
  });
});

describe('defineRecord refuses', () => {
  it.each([
    ['a name starting with a digit', { key: '1id', vectors }, '1id'],
    ['a name with a dash', { key: 'id', data: { 'first-name': { type: 'string' } }, vectors }, 'first-name'],
    ['a name with a space', { key: 'id', vectors: { 'my vec': { dimensions: 3 } } }, 'my vec'],
    ['an empty name', { key: '', vectors }, '""'],
    ['the reserved name and', { key: 'id', data: { and: { type: 'string' } }, vectors }, 'and'],
    ['the reserved name or', { key: 'or', vectors }, 'or'],
    ['the reserved name not', { key: 'id', vectors: { not: { dimensions: 3 } } }, 'not'],
    ['the name __proto__', { key: 'id', data: JSON.parse('{"__proto__": {"type": "string"}}'), vectors }, '__proto__'],
  ])('%s', (_, input, named) => {
    expect(refusal(() => define(input))).toContain(named);
  });

  it('a data property named like the key', () => {
    expect(refusal(() => define({ key: 'id', data: { id: { type: 'string' } }, vectors }))).toContain('"id" is defined twice');
  });

  it('a vector named like a data property', () => {
    expect(refusal(() => define({ key: 'id', data: { v: { type: 'string' } }, vectors }))).toContain('"v" is defined twice');
  });

  it('two properties with one storage name', () => {
    const input = { key: 'id', data: { a: { type: 'string', storageName: 'x' }, b: { type: 'string', storageName: 'x' } }, vectors };
    expect(refusal(() => define(input))).toMatch(/property "b" has storage name "x"/);
  });

  it('a storage name equal to another property name', () => {
    const input = { key: 'id', data: { a: { type: 'string', storageName: 'id' } }, vectors };
    expect(refusal(() => define(input))).toContain('"a" has storage name "id"');
  });

  it.each([
    ['empty', ''],
    ['longer than 128 characters', 'x'.repeat(129)],
    ['with NUL', 'a\u0000b'],
    ['with a newline', 'a\nb'],
    ['with DEL', 'a\u007fb'],
    ['with a lone surrogate', 'a\ud800b'],
    ['__proto__', '__proto__'],
  ])('a storage name %s', (_, storageName) => {
    const input = { key: 'id', data: { a: { type: 'string', storageName } }, vectors };
    expect(refusal(() => define(input))).toContain('"a"');
  });

  it('accepts a storage name of 128 characters that is not an identifier', () => {
    const storageName = `Hotel Name ${'é'.repeat(117)}`;
    expect(define({ key: 'id', data: { a: { type: 'string', storageName } }, vectors }).data[0]!.storageName).toBe(storageName);
  });

  it.each([
    ['a key type', { key: { name: 'id', type: 'bigint' }, vectors }, 'bigint'],
    ['a data type', { key: 'id', data: { a: { type: 'text' } }, vectors }, 'text'],
    ['a distance', { key: 'id', vectors: { v: { dimensions: 3, distance: 'manhattan' } } }, 'manhattan'],
  ])('%s it does not know', (_, input, named) => {
    expect(refusal(() => define(input))).toContain(named);
  });

  it.each([0, -1, 1.5, 65537, Number.NaN, '3'])('%j dimensions', (dimensions) => {
    expect(refusal(() => define({ key: 'id', vectors: { v: { dimensions } } }))).toContain('vector property "v"');
  });

  it('accepts 1 and 65536 dimensions', () => {
    expect(define({ key: 'id', vectors: { a: { dimensions: 1 }, b: { dimensions: 65536 } } }).vectors.map((v) => v.dimensions)).toEqual([
      1, 65536,
    ]);
  });

  it('an embed source that is missing', () => {
    expect(refusal(() => define({ key: 'id', vectors: { v: { dimensions: 3, embed: 'text' } } }))).toContain('"text"');
  });

  it('an embed source that is not a string property', () => {
    const input = { key: 'id', data: { n: { type: 'number' } }, vectors: { v: { dimensions: 3, embed: 'n' } } };
    expect(refusal(() => define(input))).toContain('"n", which is not a string data property');
  });

  it('an embed source that is the key', () => {
    expect(refusal(() => define({ key: 'id', vectors: { v: { dimensions: 3, embed: 'id' } } }))).toContain('"id"');
  });

  it('a definition without vectors', () => {
    expect(refusal(() => define({ key: 'id', data: { a: { type: 'string' } }, vectors: {} }))).toContain('at least one vector');
    expect(refusal(() => define({ key: 'id' }))).toContain('vectors');
  });

  it('an unknown option (a typo would otherwise be ignored)', () => {
    const input = { key: 'id', data: { a: { type: 'string', optinal: true } }, vectors };
    expect(refusal(() => define(input))).toContain('"optinal"');
  });

  it('a flag that is not a boolean', () => {
    expect(refusal(() => define({ key: 'id', data: { a: { type: 'string', filterable: 'yes' } }, vectors }))).toContain('filterable');
  });

  it('a key that is neither a name nor an object with a name', () => {
    expect(refusal(() => define({ key: 42, vectors }))).toContain('key');
    expect(refusal(() => define({ key: { type: 'string' }, vectors }))).toContain('key');
  });
});

describe('the record type of a definition', () => {
  it('is inferred from the input (checked by the typecheck)', () => {
    const Hotel = defineRecord({
      key: { name: 'hotelId', type: 'integer' },
      data: {
        name: { type: 'string', filterable: true },
        rating: { type: 'number', optional: true },
        opened: { type: 'date' },
        tags: { type: 'string[]' },
      },
      vectors: { embedding: { dimensions: 2 } },
    });
    type Hotel = RecordType<typeof Hotel>;
    const ok: Hotel = { hotelId: 1, name: 'Sea View', opened: new Date(0), tags: ['pool'], embedding: [1, 0] };
    const withNull: Hotel = { hotelId: 2, name: 'Hill', rating: null, opened: new Date(0), tags: [] };
    // @ts-expect-error an integer key is a number
    const badKey: Hotel = { hotelId: 'h1', name: 'x', opened: new Date(0), tags: [] };
    // @ts-expect-error name is required
    const missingName: Hotel = { hotelId: 3, opened: new Date(0), tags: [] };
    // @ts-expect-error tags holds strings
    const badTags: Hotel = { hotelId: 4, name: 'x', opened: new Date(0), tags: [1] };
    expect([ok, withNull, badKey, missingName, badTags].map((h) => h.hotelId)).toEqual([1, 2, 'h1', 3, 4]);
  });
});
