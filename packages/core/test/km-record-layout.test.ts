import { describe, expect, it } from 'vitest';
import { KmRecordLayout, type StorageRecord } from '../src/connector.js';

describe('KmRecordLayout.fromStorage', () => {
  const layout = new KmRecordLayout({ storageNames: { content: false } });
  const read = (payload: unknown) =>
    layout.fromStorage({ id: 'a', tags: ['type:note'], payload, embedding: Float32Array.of(1, 0) } as StorageRecord);

  it('reads the payload from its JSON text, or an object as the backend keeps it', () => {
    expect(read('{"text":"hi","n":1}')).toEqual({
      id: 'a',
      vector: Float32Array.of(1, 0),
      tags: { type: ['note'] },
      payload: { text: 'hi', n: 1 },
    });
    expect(read({ text: 'hi' }).payload).toEqual({ text: 'hi' });
  });

  it('a payload that is no JSON text of an object, or no object, reads as {} (as km 0.x read it) instead of failing the read', () => {
    for (const payload of ['written by another program', '', '"a string"', '42', 'null', '[1,2]', 42, true, [1, 2], null, undefined]) {
      expect(read(payload).payload, JSON.stringify(payload)).toEqual({});
    }
  });
});
