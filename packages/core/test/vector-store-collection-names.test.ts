import { describe, expect, it } from 'vitest';
import { collectionNamesUnderPrefix, isCollectionName } from '../src/vector-store/collection-name.js';

describe('collection names a backend lists', () => {
  it('keeps the valid names under the prefix, without it, sorted; leaves out everything else', () => {
    const listed = [
      'kmvs-hotels',
      'kmvs-Notes_2',
      'kmvs-a b',
      'kmvs-_x',
      'kmvs-',
      'km-docs',
      'other',
      `kmvs-${'x'.repeat(129)}`,
      'kmvs-chat',
    ];
    expect(collectionNamesUnderPrefix(listed, 'kmvs-')).toEqual(['Notes_2', 'chat', 'hotels']);
    expect(collectionNamesUnderPrefix(['hotels', 'km-docs', 'x"; drop'], '')).toEqual(['hotels', 'km-docs']);
  });

  it('accepts exactly the names checkCollectionName accepts', () => {
    for (const name of ['a', '9lives', 'A-b_c', 'x'.repeat(128)]) expect(isCollectionName(name)).toBe(true);
    for (const name of ['', '-a', '_a', 'a b', 'a.b', 'é', 'x'.repeat(129)]) expect(isCollectionName(name)).toBe(false);
  });
});
