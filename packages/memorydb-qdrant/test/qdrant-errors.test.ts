import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { translateQdrantError } from '../src/index.js';

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
