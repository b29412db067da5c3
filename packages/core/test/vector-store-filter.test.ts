import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  type FilterNode,
  filterOperatorsOf,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_IN_VALUES,
  matchesFilter,
} from '../src/connector.js';
import { defineRecord, isKmError, type RecordDefinition } from '../src/index.js';

const Hotel = defineRecord({
  key: { name: 'id', storageName: 'hotel_id' },
  data: {
    name: { type: 'string', filterable: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true, optional: true },
    rooms: { type: 'integer', filterable: true, optional: true },
    pets: { type: 'boolean', filterable: true, optional: true },
    opened: { type: 'date', filterable: true, optional: true },
    tags: { type: 'string[]', filterable: true, optional: true },
    floors: { type: 'number[]', filterable: true, optional: true },
    description: { type: 'string' },
  },
  vectors: { embedding: { dimensions: 2 } },
});
const [name, rating, rooms, pets, opened, tags, floors] = Hotel.data;
const key = Hotel.key;

function refusal(filter: unknown, definition: RecordDefinition<unknown> = Hotel): string {
  try {
    compileFilter(definition, filter);
  } catch (e) {
    if (isKmError(e, 'invalid_filter')) return e.message;
    throw new Error(`expected invalid_filter, got ${String(e)}`);
  }
  throw new Error('expected invalid_filter, nothing was thrown');
}

describe('compileFilter', () => {
  it('reads no filter and {} as match all', () => {
    expect(compileFilter(Hotel, undefined)).toBeUndefined();
    expect(compileFilter(Hotel, {})).toBeUndefined();
    expect(compileFilter(Hotel, { and: [] })).toBeUndefined();
  });

  it('reads a bare value as eq and resolves the property (storage name included)', () => {
    expect(compileFilter(Hotel, { name: 'Sea View' })).toEqual({ op: 'eq', property: name, value: 'Sea View' });
    expect((compileFilter(Hotel, { name: 'x' }) as { property: { storageName: string } }).property.storageName).toBe('hotel_name');
  });

  it('compiles every operator', () => {
    const when = new Date('2020-01-01T00:00:00Z');
    expect(compileFilter(Hotel, { rating: { eq: 4 } })).toEqual({ op: 'eq', property: rating, value: 4 });
    expect(compileFilter(Hotel, { rating: { ne: 4 } })).toEqual({ op: 'ne', property: rating, value: 4 });
    expect(compileFilter(Hotel, { rating: { gt: 4 } })).toEqual({ op: 'gt', property: rating, value: 4 });
    expect(compileFilter(Hotel, { rooms: { gte: 10 } })).toEqual({ op: 'gte', property: rooms, value: 10 });
    expect(compileFilter(Hotel, { opened: { lt: when } })).toEqual({ op: 'lt', property: opened, value: when });
    expect(compileFilter(Hotel, { rating: { lte: 2.5 } })).toEqual({ op: 'lte', property: rating, value: 2.5 });
    expect(compileFilter(Hotel, { name: { in: ['a', 'b'] } })).toEqual({ op: 'in', property: name, values: ['a', 'b'] });
    expect(compileFilter(Hotel, { tags: { contains: 'pool' } })).toEqual({ op: 'contains', property: tags, value: 'pool' });
    expect(compileFilter(Hotel, { floors: { contains: 3 } })).toEqual({ op: 'contains', property: floors, value: 3 });
    expect(compileFilter(Hotel, { pets: true })).toEqual({ op: 'eq', property: pets, value: true });
    expect(compileFilter(Hotel, { not: { pets: true } })).toEqual({ op: 'not', node: { op: 'eq', property: pets, value: true } });
    expect(compileFilter(Hotel, { or: [{ name: 'a' }, { name: 'b' }] })).toEqual({
      op: 'or',
      nodes: [
        { op: 'eq', property: name, value: 'a' },
        { op: 'eq', property: name, value: 'b' },
      ],
    });
    expect(compileFilter(Hotel, { and: [{ name: 'a' }] })).toEqual({ op: 'and', nodes: [{ op: 'eq', property: name, value: 'a' }] });
  });

  it('ANDs the entries of one object and the operators of one property', () => {
    expect(compileFilter(Hotel, { name: 'a', rating: { gte: 3, lt: 5 } })).toEqual({
      op: 'and',
      nodes: [
        { op: 'eq', property: name, value: 'a' },
        {
          op: 'and',
          nodes: [
            { op: 'gte', property: rating, value: 3 },
            { op: 'lt', property: rating, value: 5 },
          ],
        },
      ],
    });
  });

  it('keeps or: [] (matches nothing) and in: [] (matches nothing)', () => {
    expect(compileFilter(Hotel, { or: [] })).toEqual({ op: 'or', nodes: [] });
    expect(compileFilter(Hotel, { name: { in: [] } })).toEqual({ op: 'in', property: name, values: [] });
  });

  it('the key is always filterable, by its own type', () => {
    expect(compileFilter(Hotel, { id: 'h1' })).toEqual({ op: 'eq', property: key, value: 'h1' });
    const ByUuid = defineRecord({ key: { name: 'id', type: 'uuid' }, vectors: { v: { dimensions: 1 } } });
    const uuid = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11';
    expect(compileFilter(ByUuid, { id: uuid })).toMatchObject({ value: uuid.toLowerCase() });
    expect(refusal({ id: 'not-a-uuid' }, ByUuid)).toContain('UUID');
    const ByNumber = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 1 } } });
    expect(compileFilter(ByNumber, { n: { gt: 5 } })).toMatchObject({ op: 'gt', value: 5 });
    expect(refusal({ n: -1 }, ByNumber)).toContain('non-negative integer');
    expect(refusal({ id: { gt: 'a' } })).toContain('operator gt does not apply to property id');
  });

  it('turns ISO-8601 strings into dates and refuses what is not one', () => {
    expect(compileFilter(Hotel, { opened: '2024-02-29' })).toMatchObject({ value: new Date(Date.UTC(2024, 1, 29)) });
    expect(compileFilter(Hotel, { opened: { gte: '2024-02-29T10:00:00+01:00' } })).toMatchObject({
      value: new Date('2024-02-29T09:00:00Z'),
    });
    for (const bad of ['2023-02-29', '2024-13-01', '2024-01-01T10:00:00', 'yesterday', '1700000000000']) {
      expect(refusal({ opened: bad })).toContain('opened');
    }
    expect(refusal({ opened: new Date(Number.NaN) })).toContain('an invalid Date');
  });

  it('treats injection-looking strings as values', () => {
    for (const value of ["x' OR '1'='1", '"; DROP TABLE hotels; --', '@name:{*}', '$where', '{"$ne": null}', '*) (|(a=*']) {
      expect(compileFilter(Hotel, { name: value })).toEqual({ op: 'eq', property: name, value });
      expect(compileFilter(Hotel, { tags: { contains: value } })).toEqual({ op: 'contains', property: tags, value });
    }
  });
});

describe('compileFilter refuses', () => {
  it('an unknown property, naming it and listing the filterable ones', () => {
    const message = refusal({ city: 'Paris' });
    expect(message).toContain('"city"');
    expect(message).toContain('id, name, rating, rooms, pets, opened, tags, floors');
    expect(message).not.toContain('description,');
  });

  it('a property that is not filterable, and a vector', () => {
    expect(refusal({ description: 'x' })).toContain('description is not filterable');
    expect(refusal({ embedding: 'x' })).toContain('embedding is not filterable');
  });

  it('storage names in place of property names', () => {
    expect(refusal({ hotel_name: 'x' })).toContain('"hotel_name"');
  });

  it('an unknown operator, listing the operators of the property', () => {
    const message = refusal({ rating: { $gt: 3 } });
    expect(message).toContain('unknown operator "$gt"');
    expect(message).toContain('eq, ne, in, gt, gte, lt, lte');
    expect(refusal({ name: { like: '%a' } })).toContain('operators: eq, ne, in');
  });

  it('ranges on strings and booleans', () => {
    expect(refusal({ name: { gt: 'a' } })).toContain('operator gt does not apply to property name (string)');
    expect(refusal({ pets: { lte: true } })).toContain('operator lte does not apply');
  });

  it('contains on scalars and scalar operators on arrays', () => {
    expect(refusal({ name: { contains: 'a' } })).toContain('operator contains does not apply');
    expect(refusal({ tags: 'pool' })).toContain('operator eq does not apply to property tags (string[]); operators: contains');
    expect(refusal({ tags: { in: ['pool'] } })).toContain('operator in does not apply');
  });

  it.each([
    ['a number for a string', { name: 3 }],
    ['a string for a number', { rating: '4' }],
    ['NaN', { rating: Number.NaN }],
    ['Infinity', { rating: { gt: Number.POSITIVE_INFINITY } }],
    ['a fraction for an integer', { rooms: 2.5 }],
    ['an unsafe integer', { rooms: 2 ** 60 }],
    ['a string for a boolean', { pets: 'true' }],
    ['null', { rating: null }],
    ['an array as a value', { name: ['a'] }],
    ['a non-array for in', { name: { in: 'a' } }],
    ['a wrong element in in', { rating: { in: [1, 'two'] } }],
    ['a number to contain in string[]', { tags: { contains: 1 } }],
    ['a string to contain in number[]', { floors: { contains: '1' } }],
    ['a NUL in a string', { name: 'a\u0000b' }],
    ['a lone surrogate in contains', { tags: { contains: '\udc00' } }],
    ['an empty operator object', { name: {} }],
    ['a non-array for and', { and: { name: 'a' } }],
    ['a non-object in or', { or: ['a'] }],
    ['a non-object filter', 'name = 1'],
    ['an array filter', [{ name: 'a' }]],
  ])('%s', (_, filter) => {
    expect(refusal(filter)).toBeTruthy();
  });

  it(`more than ${MAX_FILTER_DEPTH} levels`, () => {
    const nest = (levels: number): Record<string, unknown> => (levels === 1 ? { name: 'a' } : { not: nest(levels - 1) });
    expect(compileFilter(Hotel, nest(MAX_FILTER_DEPTH))).toBeDefined();
    expect(refusal(nest(MAX_FILTER_DEPTH + 1))).toContain('deeper than 16');
  });

  it(`more than ${MAX_FILTER_CONDITIONS} conditions`, () => {
    const conditions = (n: number) => ({ or: Array.from({ length: n }, (_, i) => ({ rooms: i })) });
    expect(compileFilter(Hotel, conditions(MAX_FILTER_CONDITIONS))).toBeDefined();
    expect(refusal(conditions(MAX_FILTER_CONDITIONS + 1))).toContain('more than 1024 conditions');
  });

  it(`more than ${MAX_FILTER_IN_VALUES} values in one in`, () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(compileFilter(Hotel, { rooms: { in: values(MAX_FILTER_IN_VALUES) } })).toBeDefined();
    expect(refusal({ rooms: { in: values(MAX_FILTER_IN_VALUES + 1) } })).toContain('at most 1024');
  });
});

describe('filterOperatorsOf', () => {
  it('lists every operator a node uses', () => {
    const node = compileFilter(Hotel, { or: [{ not: { name: 'a' } }, { tags: { contains: 'x' }, rating: { in: [1] } }] });
    expect([...filterOperatorsOf(node)].sort()).toEqual(['and', 'contains', 'eq', 'in', 'not', 'or']);
    expect(filterOperatorsOf(undefined).size).toBe(0);
  });
});

describe('matchesFilter (the reference semantics)', () => {
  const full = {
    hotel_id: 'h1',
    hotel_name: 'Sea View',
    rating: 4.5,
    rooms: 20,
    pets: false,
    opened: new Date('2020-06-01T00:00:00Z'),
    tags: ['pool', 'spa'],
    floors: [1, 2],
  };
  const empty = { hotel_id: 'h2', hotel_name: 'Hill', rating: null, rooms: null, pets: null, opened: null, tags: null, floors: null };
  const absent = { hotel_id: 'h3', hotel_name: 'Lake' };
  const match = (filter: unknown, record: Record<string, unknown>) => {
    const node = compileFilter(Hotel, filter);
    return node === undefined ? true : matchesFilter(node, record);
  };

  it('reads values by storage name', () => {
    expect(match({ name: 'Sea View' }, full)).toBe(true);
    expect(matchesFilter(compileFilter(Hotel, { name: 'Sea View' })!, { name: 'Sea View' })).toBe(false);
    expect(match({ id: 'h1' }, full)).toBe(true);
  });

  it('is false for any comparison on a missing or null value', () => {
    for (const record of [empty, absent]) {
      for (const filter of [
        { rating: 4.5 },
        { rating: { gt: 0 } },
        { rating: { lte: 100 } },
        { pets: false },
        { opened: { lt: '2100-01-01' } },
        { rooms: { in: [20] } },
        { tags: { contains: 'pool' } },
      ]) {
        expect(match(filter, record), JSON.stringify(filter)).toBe(false);
      }
    }
  });

  it('ne is not eq, so it matches records without the value', () => {
    expect(match({ rating: { ne: 4.5 } }, full)).toBe(false);
    expect(match({ rating: { ne: 3 } }, full)).toBe(true);
    expect(match({ rating: { ne: 3 } }, empty)).toBe(true);
    expect(match({ rating: { ne: 3 } }, absent)).toBe(true);
  });

  it('not is the complement, including over missing values', () => {
    expect(match({ not: { rating: { gt: 4 } } }, full)).toBe(false);
    expect(match({ not: { rating: { gt: 4 } } }, empty)).toBe(true);
    expect(match({ not: { not: { rating: { gt: 4 } } } }, absent)).toBe(false);
  });

  it('in [] and or [] match nothing; and [] matches everything', () => {
    expect(match({ name: { in: [] } }, full)).toBe(false);
    expect(match({ or: [] }, full)).toBe(false);
    expect(matchesFilter({ op: 'and', nodes: [] }, full)).toBe(true);
    expect(match({ name: { in: ['Hill', 'Sea View'] } }, full)).toBe(true);
  });

  it('contains matches an element; ranges compare numbers', () => {
    expect(match({ tags: { contains: 'spa' } }, full)).toBe(true);
    expect(match({ tags: { contains: 'sp' } }, full)).toBe(false);
    expect(match({ floors: { contains: 2 } }, full)).toBe(true);
    expect(match({ rating: { gt: 4.5 } }, full)).toBe(false);
    expect(match({ rating: { gte: 4.5 } }, full)).toBe(true);
    expect(match({ rooms: { lt: 20 } }, full)).toBe(false);
    expect(match({ rooms: { lte: 20 } }, full)).toBe(true);
  });

  it('compares dates by time, whatever the Date object', () => {
    expect(match({ opened: '2020-06-01' }, full)).toBe(true);
    expect(match({ opened: new Date('2020-06-01T02:00:00+02:00') }, full)).toBe(true);
    expect(match({ opened: { gt: '2020-05-31T23:59:59Z' } }, full)).toBe(true);
    expect(match({ opened: { lt: '2020-06-01' } }, full)).toBe(false);
    expect(match({ opened: { in: ['2019-01-01', '2020-06-01'] } }, full)).toBe(true);
  });

  it('combines or, and, not', () => {
    const filter = { or: [{ rating: { gte: 4 }, pets: true }, { not: { tags: { contains: 'pool' } } }] };
    expect(match(filter, full)).toBe(false);
    expect(match(filter, { ...full, pets: true })).toBe(true);
    expect(match(filter, absent)).toBe(true);
  });

  it('evaluates a node built by hand', () => {
    const node: FilterNode = { op: 'gte', property: rating!, value: 4 };
    expect(matchesFilter(node, full)).toBe(true);
    expect(matchesFilter(node, { rating: '5' })).toBe(false);
  });
});
