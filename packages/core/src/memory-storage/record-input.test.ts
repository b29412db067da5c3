import { describe, expect, it } from 'vitest';
import { isKmError } from '../errors/km-error.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { checkRecord } from './record-input.js';

const record = (overrides: Partial<MemoryRecord>): MemoryRecord => ({
  id: 'r1',
  vector: [1, 0],
  tags: {},
  payload: { text: 'ok' },
  ...overrides,
});
const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return isKmError(error) ? error.code : 'not a KmError';
  }
  return undefined;
};

describe('checkRecord refuses text a store cannot hold, before any write', () => {
  it('NUL or a lone surrogate in the payload is invalid_argument, wherever it sits', () => {
    expect(code(() => checkRecord(record({ payload: { text: 'a\u0000b' } }), 'test'))).toBe('invalid_argument');
    expect(code(() => checkRecord(record({ payload: { text: 'half \ud800 pair' } })))).toBe('invalid_argument');
    expect(code(() => checkRecord(record({ payload: { nested: [{ deep: '\udc00' }] } })))).toBe('invalid_argument');
    expect(code(() => checkRecord(record({ payload: { 'k\u0000': 1 } })))).toBe('invalid_argument');
  });

  it('in the id it is invalid_argument; in tags invalid_tag, naming the connector', () => {
    expect(code(() => checkRecord(record({ id: 'd=x//p=\u0000' })))).toBe('invalid_argument');
    expect(code(() => checkRecord(record({ tags: { user: ['\u0000'] } }), 'test'))).toBe('invalid_tag');
    expect(code(() => checkRecord(record({ tags: { ['\ud800']: ['x'] } })))).toBe('invalid_tag');
    expect(() => checkRecord(record({ tags: { user: ['\u0000'] } }), 'test')).toThrow(/\[km\] \[test\] tags of record "r1"/);
  });

  it('keeps valid text intact, escaped-looking text and control characters included', () => {
    const payload = { text: 'tab\there \\u0000 literal, emoji 😀, bell \u0007' };
    expect(JSON.parse(checkRecord(record({ payload })).payloadJson)).toEqual(payload);
  });
});
