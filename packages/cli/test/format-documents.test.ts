import { describe, expect, it } from 'vitest';
import type { DocumentSummary } from '@km/core';
import { documentFiltersOf } from '../src/document-filters.js';
import { formatBytes, formatDocumentTable, formatTags } from '../src/format-documents.js';

const summary = (over: Partial<DocumentSummary> & Pick<DocumentSummary, 'documentId'>): DocumentSummary => ({
  index: 'default',
  state: 'completed',
  tags: {},
  files: [],
  size: 0,
  creation: '2026-03-01T08:00:00.000Z',
  lastUpdate: '2026-03-01T08:05:30.000Z',
  steps: [],
  remainingSteps: [],
  ...over,
});

describe('formatDocumentTable', () => {
  it('aligns the columns, shows a failure with its reason and a failed file, and tags without value by key', () => {
    const text = formatDocumentTable([
      summary({
        documentId: 'a',
        tags: { team: ['hr'], draft: [null] },
        files: [{ name: 'a.txt', size: 2048, mimeType: 'text/plain' }],
        size: 2048,
      }),
      summary({
        documentId: 'report-2026',
        state: 'failed',
        error: 'step "extract" failed:\n  no decoder',
        files: [{ name: 'r.bin', size: 10, mimeType: 'application/octet-stream', error: 'no decoder' }],
        size: 10,
      }),
    ]);
    expect(text).toBe(
      [
        'ID           STATE                                      TAGS            FILES           SIZE    UPDATED',
        'a            completed                                  team:hr, draft  a.txt           2.0 KB  2026-03-01 08:05',
        'report-2026  failed: step "extract" failed: no decoder  -               r.bin (failed)  10 B    2026-03-01 08:05',
        '',
      ].join('\n'),
    );
  });

  it('says so when there is no document', () => {
    expect(formatDocumentTable([])).toBe('(no documents)\n');
  });
});

describe('formatBytes and formatTags', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KB'],
    [5 * 1024 * 1024, '5.0 MB'],
  ])('%d bytes → %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));

  it('writes tags as key:value, a tag without value as its key, none as -', () => {
    expect(formatTags({ a: ['1', '2'], b: [null] })).toBe('a:1, a:2, b');
    expect(formatTags({})).toBe('-');
  });
});

describe('documentFiltersOf', () => {
  const json = (opts: Parameters<typeof documentFiltersOf>[0]) => documentFiltersOf(opts).map((f) => f.toJSON());

  it('ANDs the --tag options, and adds them to each --filter object (ORed)', () => {
    expect(json({ tag: [] })).toEqual([]);
    expect(json({ tag: ['team:hr', '__document_id:a'] })).toEqual([{ team: ['hr'], __document_id: ['a'] }]);
    expect(json({ tag: [], filter: '{"year":["2026"]}' })).toEqual([{ year: ['2026'] }]);
    expect(json({ tag: ['team:hr'], filter: '[{"year":["2025"]},{"!draft":[null]}]' })).toEqual([
      { year: ['2025'], team: ['hr'] },
      { '!draft': [null], team: ['hr'] },
    ]);
  });

  it('refuses what is not a filter with invalid_filter', () => {
    for (const opts of [
      { tag: ['nocolon'] },
      { tag: [], filter: '{nope' },
      { tag: [], filter: '[]' },
      { tag: [], filter: '{"__nope":["x"]}' },
    ]) {
      expect(() => documentFiltersOf(opts), JSON.stringify(opts)).toThrow(expect.objectContaining({ code: 'invalid_filter' }));
    }
  });
});
