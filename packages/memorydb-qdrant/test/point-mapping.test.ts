import { isKmError } from '@km/core';
import { checkVectorRecord } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { PayloadFields, pointIdOf, toPoint, toRecord, translateQdrantError } from '../src/index.js';

describe('point mapping', () => {
  const record = checkVectorRecord(
    {
      id: 'd=doc//p=1',
      vector: [3, 4, 0],
      tags: { user: ['a', 'b'], flag: [null], __document_id: ['doc'] },
      payload: { text: 'hi', n: 1 },
    },
    'qdrant',
  );

  it('a record becomes a point: derived UUID, km id, key:value tags, payload and the vector length', () => {
    expect(toPoint(record)).toEqual({
      id: pointIdOf('d=doc//p=1'),
      vector: [3, 4, 0],
      payload: { id: 'd=doc//p=1', tags: ['user:a', 'user:b', 'flag', '__document_id:doc'], payload: { text: 'hi', n: 1 }, norm: 5 },
    });
  });

  it('a point read back gives the km record; the normalised vector Qdrant stores is scaled back', () => {
    const stored = { ...toPoint(record), vector: [0.6, 0.8, 0] };
    const back = toRecord(stored, true);
    expect(back.id).toBe('d=doc//p=1');
    expect(back.tags).toEqual({ user: ['a', 'b'], flag: [null], __document_id: ['doc'] });
    expect(back.payload).toEqual({ text: 'hi', n: 1 });
    expect(Array.from(back.vector)).toEqual([3, 4, 0].map((x) => Math.fround(x)));
    expect(toRecord(stored, false).vector).toHaveLength(0);
  });

  it('a point without km fields (written by another tool) still gives a record', () => {
    const back = toRecord({ id: 7, payload: { [PayloadFields.payload]: 'not an object' } }, false);
    expect(back).toEqual({ id: '7', vector: new Float32Array(0), tags: {}, payload: {} });
  });
});

describe('translateQdrantError', () => {
  const apiError = (status: number, error: string) => Object.assign(new Error('Bad'), { status, data: { status: { error } } });

  it('maps Qdrant answers to typed km errors', () => {
    expect(isKmError(translateQdrantError(apiError(404, "Not found: Collection `x` doesn't exist!"), 'x'), 'index_not_found')).toBe(true);
    expect(
      isKmError(
        translateQdrantError(apiError(400, 'Wrong input: Vector dimension error: expected dim: 3, got 2'), 'x'),
        'vector_size_mismatch',
      ),
    ).toBe(true);
    expect(isKmError(translateQdrantError(apiError(403, 'Invalid api-key'), 'x'), 'unauthorized')).toBe(true);
    const busy = translateQdrantError(apiError(503, 'Service unavailable'), 'x');
    expect(isKmError(busy, 'transient') && busy.transient).toBe(true);
    const refused = translateQdrantError(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }), 'x');
    expect(isKmError(refused, 'transient')).toBe(true);
    const other = translateQdrantError(apiError(400, 'Format error in JSON body'), 'x');
    expect(isKmError(other, 'upstream_error') && !other.transient).toBe(true);
  });
});
