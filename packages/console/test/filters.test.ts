import { describe, expect, it } from 'vitest';
import { parseFilters, parseTagFields } from '../src/filters.js';
import { passageLocation } from '../src/views/citation-location.js';

describe('console filter text', () => {
  it('reads one filter per line (OR), comma-separated tags within a line (AND), and ! for NOT', () => {
    expect(parseFilters('topic:space, !draft\n\n user:alice ,user:bob\n')).toEqual([
      { topic: ['space'], '!draft': [null] },
      { user: ['alice', 'bob'] },
    ]);
  });

  it('splits a tag at its first colon and refuses a tag without a key', () => {
    expect(parseFilters('url:https://x.test/a')).toEqual([{ url: ['https://x.test/a'] }]);
    expect(parseFilters('')).toEqual([]);
    expect(() => parseFilters(':value')).toThrow(/has no key/);
    expect(() => parseFilters('!')).toThrow(/has no key/);
  });

  it('reads upload tags separated by commas or lines', () => {
    expect(parseTagFields('topic:space, user:alice\ndraft')).toEqual(['topic:space', 'user:alice', 'draft']);
    expect(() => parseTagFields(':x')).toThrow(/has no key/);
  });
});

describe('citation places', () => {
  it('says page for a PDF, section for other formats, and the passage number otherwise', () => {
    expect(passageLocation({ sourceContentType: 'application/pdf' }, { sectionNumber: 3, partitionNumber: 7 })).toBe('page 3');
    expect(passageLocation({ sourceContentType: 'text/html' }, { sectionNumber: 2, partitionNumber: 0 })).toBe('section 2');
    expect(passageLocation({ sourceContentType: 'text/plain' }, { sectionNumber: 0, partitionNumber: 0 })).toBe('passage 1');
  });
});
