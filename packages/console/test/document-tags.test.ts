import { describe, expect, it } from 'vitest';
import { parseTagLines, tagStrings } from '../src/document-tags.js';

describe('console document tags', () => {
  it('reads key:value lines into a tag collection, a bare key as a key without a value', () => {
    expect(parseTagLines('topic:space\n  user: alice \ndraft\n\ntopic:moon\r\nnote:a:b, c')).toEqual({
      topic: ['space', 'moon'],
      user: ['alice'],
      draft: [null],
      note: ['a:b, c'],
    });
    expect(parseTagLines('  \n')).toEqual({});
  });

  it('refuses a tag with no key, naming it', () => {
    expect(() => parseTagLines('topic:space\n:orphan')).toThrow('the tag ":orphan" has no key');
  });

  it('writes tags back as key:value strings in key order, which parse to the same tags', () => {
    const tags = { user: ['alice', 'bob'], draft: [null], topic: ['space'] };
    expect(tagStrings(tags)).toEqual(['draft', 'topic:space', 'user:alice', 'user:bob']);
    expect(parseTagLines(tagStrings(tags).join('\n'))).toEqual(tags);
  });
});
