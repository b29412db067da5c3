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

describe('KmRecordLayout with textOnce', () => {
  const once = new KmRecordLayout({ textOnce: true });
  const twice = new KmRecordLayout();
  const record = (payload: Record<string, unknown>) => ({
    id: 'a',
    vector: Float32Array.of(1, 0),
    tags: {},
    payload,
    payloadJson: JSON.stringify(payload),
  });

  it('stores the partition text once, in content, and reads it back into the payload', () => {
    const stored = once.toStorage(record({ text: 'moon landing', file: 'a.txt' }));
    expect(stored.content).toBe('moon landing');
    expect(JSON.parse(stored.payload as string)).toEqual({ file: 'a.txt' });
    expect(once.fromStorage(stored).payload).toEqual({ text: 'moon landing', file: 'a.txt' });
    // Without the option the payload keeps its text, as before.
    expect(JSON.parse(twice.toStorage(record({ text: 'moon landing' })).payload as string)).toEqual({ text: 'moon landing' });
  });

  it('reads a row written with the text in its payload as it is, and adds no text to a payload that had none', () => {
    const old = twice.toStorage(record({ text: 'in the payload', n: 1 }));
    expect(once.fromStorage({ ...old, content: 'other' }).payload).toEqual({ text: 'in the payload', n: 1 });
    const none = once.toStorage(record({ file: 'b.txt' }));
    expect(once.fromStorage(none).payload).toEqual({ file: 'b.txt' });
    const empty = once.toStorage(record({ text: '' }));
    expect(JSON.parse(empty.payload as string)).toEqual({ text: '' });
    expect(once.fromStorage(empty).payload).toEqual({ text: '' });
  });

  it('has no effect without a content column', () => {
    const layout = new KmRecordLayout({ textOnce: true, storageNames: { content: false } });
    expect(JSON.parse(layout.toStorage(record({ text: 'kept' })).payload as string)).toEqual({ text: 'kept' });
  });
});
