import { describe, expect, it } from 'vitest';
import { isKmError } from '../errors/km-error.js';
import { documentFromInput } from './document-input.js';
import { Document } from './document.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';
import { addTag, validateTags } from './tag-collection.js';

const invalidTag = (e: unknown) => isKmError(e, 'invalid_tag');

describe('text no memory DB can store', () => {
  it('names NUL and lone surrogates, and accepts paired surrogates', () => {
    expect(unstorableTextReason('a\u0000b')).toMatch(/NUL/);
    expect(unstorableTextReason('x\ud800')).toMatch(/lone surrogate \(U\+D800\)/);
    expect(unstorableTextReason('\udc00x')).toMatch(/lone surrogate \(U\+DC00\)/);
    expect(unstorableTextReason('emoji 😀 ok')).toBeUndefined();
    expect(unstorableTextReason('plain')).toBeUndefined();
  });

  it('is refused in tag keys and values at import, as invalid_tag', () => {
    expect(() => validateTags({ 'ke\u0000y': ['v'] })).toThrow(expect.objectContaining({ code: 'invalid_tag' }));
    expect(() => validateTags({ key: ['v\u0000'] })).toThrow(expect.objectContaining({ code: 'invalid_tag' }));
    expect(() => validateTags({ key: 'lone \ud800' })).toThrow(expect.objectContaining({ code: 'invalid_tag' }));
    expect(() => new Document('doc').addTag('key', 'a\u0000b')).toSatisfy(throwsWith(invalidTag));
    expect(() => new Document('doc', { key: ['\udfff'] })).toSatisfy(throwsWith(invalidTag));
    expect(() => documentFromInput(new Document('doc'), { tags: { key: ['bad\u0000'] } })).toSatisfy(throwsWith(invalidTag));
    expect(() => addTag({}, 'key', '\ud83d')).toSatisfy(throwsWith(invalidTag));
    expect(validateTags({ key: ['😀', null] })).toEqual({ key: ['😀', null] });
  });
});

function throwsWith(check: (e: unknown) => boolean) {
  return (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return check(error);
    }
    return false;
  };
}
