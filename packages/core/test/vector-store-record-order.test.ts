import { describe, expect, it } from 'vitest';
import { compareKeys, recordOrder } from '../src/vector-store/record-order.js';

describe('recordOrder: the order of collection.query for drivers that sort', () => {
  const rows = [
    { id: 10, rating: null, pets: true, opened: new Date(5) },
    { id: 2, rating: 3, pets: false, opened: new Date(9) },
    { id: 7, rating: 3, pets: null, opened: new Date(1) },
    { id: 1, rating: 4.5, pets: true, opened: null },
  ];
  const keys = (orderBy: Array<{ storageName: string; descending: boolean }>) =>
    [...rows].sort(recordOrder('id', orderBy)).map((r) => r.id);

  it('missing values last in either direction, ties by the key (integers by value), booleans false first, dates by time', () => {
    expect(keys([{ storageName: 'rating', descending: false }])).toEqual([2, 7, 1, 10]);
    expect(keys([{ storageName: 'rating', descending: true }])).toEqual([1, 2, 7, 10]);
    expect(keys([{ storageName: 'pets', descending: false }])).toEqual([2, 1, 10, 7]);
    expect(keys([{ storageName: 'opened', descending: true }])).toEqual([2, 10, 7, 1]);
    expect(keys([])).toEqual([1, 2, 7, 10]);
    expect(
      keys([
        { storageName: 'rating', descending: false },
        { storageName: 'opened', descending: true },
      ]),
    ).toEqual([2, 7, 1, 10]);
  });

  it('orders string keys by UTF-16 code units, not by locale', () => {
    expect(['b', 'B', 'a', 'é', '10', '9'].sort(compareKeys)).toEqual(['10', '9', 'B', 'a', 'b', 'é']);
  });
});
