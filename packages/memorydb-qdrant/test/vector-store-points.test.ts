import { defineRecord } from '@km/core';
import { describe, expect, it } from 'vitest';
import { pointIdOf } from '../src/index.js';
import { fromVectorPoint, pointIdOfKey, toVectorPoint, VECTOR_COPIES_FIELD } from '../src/vector-store/qdrant-vector-points.js';

const Doc = defineRecord({
  key: { name: 'id', storageName: 'doc_id' },
  data: { title: { type: 'string' }, when: { type: 'date', optional: true }, tags: { type: 'string[]' } },
  vectors: { text: { dimensions: 2, storageName: 'text_vec' }, image: { dimensions: 2, distance: 'euclidean', optional: true } },
});

describe('Qdrant points of typed records', () => {
  it('point ids: uuid and integer keys as they are, string keys as the memory DB derives them', () => {
    expect(pointIdOfKey('k', Doc)).toBe(pointIdOf('k'));
    expect(pointIdOfKey(5, defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 1 } } }))).toBe(5);
    const Uuid = defineRecord({ key: { name: 'u', type: 'uuid' }, vectors: { v: { dimensions: 1 } } });
    expect(pointIdOfKey('0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D', Uuid)).toBe('0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
  });

  it('a record becomes a point: key and data in the payload by storage name, named vectors, a copy of cosine vectors', () => {
    const point = toVectorPoint(Doc, {
      doc_id: 'k',
      title: 't',
      when: null,
      tags: ['a'],
      text_vec: Float32Array.from([0.5, 3]),
    });
    expect(point).toEqual({
      id: pointIdOf('k'),
      vector: { text_vec: [0.5, 3] },
      payload: { doc_id: 'k', title: 't', tags: ['a'], [VECTOR_COPIES_FIELD]: { text_vec: [0.5, 3] } },
    });
  });

  it('a point reads back: nulls for absent data, dates as Date, cosine vectors from their copy (Qdrant returns them normalised)', () => {
    const record = fromVectorPoint(
      Doc,
      {
        id: pointIdOf('k'),
        payload: { doc_id: 'k', title: 't', when: '2024-02-29T23:59:59.123Z', tags: [], [VECTOR_COPIES_FIELD]: { text_vec: [0.5, 3] } },
        vector: { text_vec: [0.164, 0.986], image: [1, 2] },
      },
      true,
    );
    expect(record).toEqual({
      doc_id: 'k',
      title: 't',
      when: new Date('2024-02-29T23:59:59.123Z'),
      tags: [],
      text_vec: Float32Array.from([0.5, 3]),
      image: Float32Array.from([1, 2]),
    });
    expect(fromVectorPoint(Doc, { id: pointIdOf('k'), payload: { doc_id: 'k', title: 't', tags: [] } }, false)).toEqual({
      doc_id: 'k',
      title: 't',
      when: null,
      tags: [],
    });
  });
});
