import { describe, expect, it } from 'vitest';
import { KM_POINT_ID_NAMESPACE, pointIdOf, uuidV5 } from '../src/index.js';

describe('point ids', () => {
  it('uuidV5 matches the RFC test vector (DNS namespace, "www.example.com")', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('a km id maps to a stable version-5 UUID, the form Qdrant accepts as a point id', () => {
    const id = pointIdOf('d=doc-1//p=abc');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pointIdOf('d=doc-1//p=abc')).toBe(id);
    expect(id).toBe(uuidV5(KM_POINT_ID_NAMESPACE, 'd=doc-1//p=abc'));
  });

  it('distinct ids, including ones differing only in case or unicode form, get distinct points', () => {
    const ids = ['a', 'A', 'd=x//p=1', 'd=x//p=10', 'ÄÖ ü', 'A\u0308', '\u00c4', `quote'"id`, ''];
    expect(new Set(ids.map(pointIdOf)).size).toBe(ids.length);
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(TypeError);
  });
});
