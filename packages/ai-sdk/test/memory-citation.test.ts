import { describe, expect, it } from 'vitest';
import type { Citation } from '@km/core';
import { sourceLabel, toMemoryCitations } from '../src/index.js';

const partition = (partitionNumber: number, relevance: number, sectionNumber = 0) => ({
  text: `part ${partitionNumber}`,
  relevance,
  partitionNumber,
  sectionNumber,
  lastUpdate: '2026-11-27T00:00:00Z',
  tags: { __document_id: ['d'], __file_type: ['x'], team: ['a', 'b'] },
});

const citation = (over: Partial<Citation>): Citation => ({
  link: 'i/d/f',
  index: 'i',
  documentId: 'd',
  fileId: 'f',
  sourceContentType: 'text/plain',
  sourceName: 'notes.txt',
  sourceUrl: '/download?index=i&documentId=d&filename=notes.txt',
  partitions: [],
  ...over,
});

describe('toMemoryCitations', () => {
  it('flattens citations into passages, most relevant first, pages for PDFs and sections for others', () => {
    const out = toMemoryCitations([
      citation({
        sourceContentType: 'application/pdf',
        sourceName: 'report.pdf',
        partitions: [partition(0, 0.5, 3), partition(1, 0.2, 0)],
      }),
      citation({ documentId: 'e', sourceContentType: 'text/markdown', sourceName: 'guide.md', partitions: [partition(0, 0.7, 2)] }),
    ]);
    expect(out.map((c) => [c.fileName, c.partitionNumber, c.relevance])).toEqual([
      ['guide.md', 0, 0.7],
      ['report.pdf', 0, 0.5],
      ['report.pdf', 1, 0.2],
    ]);
    expect(out[0]).toMatchObject({ section: 2, tags: { team: ['a', 'b'] } });
    expect(out[0]).not.toHaveProperty('page');
    expect(out[1]).toMatchObject({ page: 3 });
    expect(out[1]).not.toHaveProperty('section');
    expect(out[2]).not.toHaveProperty('page');
    expect(out[2]?.tags).toEqual({ team: ['a', 'b'] });
    expect(sourceLabel(out[0]!)).toBe('guide.md, section 2');
    expect(sourceLabel(out[1]!)).toBe('report.pdf, page 3');
    expect(sourceLabel(out[2]!)).toBe('report.pdf');
  });

  it('keeps the order of equal relevance', () => {
    const out = toMemoryCitations([
      citation({ partitions: [partition(4, 0.5), partition(2, 0.5)] }),
      citation({ documentId: 'z', partitions: [partition(1, 0.5)] }),
    ]);
    expect(out.map((c) => `${c.documentId}:${c.partitionNumber}`)).toEqual(['d:4', 'd:2', 'z:1']);
  });
});
