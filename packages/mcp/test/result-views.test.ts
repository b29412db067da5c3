import type { Citation, MemoryAnswer, SearchResult } from '@km/core';
import { describe, expect, it } from 'vitest';
import { askText, askView, searchText, searchView } from '../src/result-views.js';

function citation(over: Partial<Citation>, sections: number[]): Citation {
  return {
    link: 'default/doc/file',
    index: 'default',
    documentId: 'doc',
    fileId: 'file',
    sourceContentType: 'application/pdf',
    sourceName: 'report.pdf',
    partitions: sections.map((sectionNumber, i) => ({
      text: `passage ${i}`,
      relevance: 0.9 - i / 10,
      partitionNumber: i,
      sectionNumber,
      lastUpdate: '2026-01-01T00:00:00Z',
      tags: { __document_id: ['doc'], user: ['alice'] },
    })),
    ...over,
  };
}

describe('search and ask views', () => {
  it('give PDF sections as pages and other sections as sections, without reserved tags', () => {
    const result: SearchResult = {
      query: 'q',
      noResult: false,
      results: [citation({}, [3, 0]), citation({ sourceContentType: 'text/markdown', sourceName: 'notes.md', documentId: 'md' }, [2])],
    };
    const view = searchView(result);
    expect(view.results[0]!.partitions.map((p) => [p.page, p.section])).toEqual([
      [3, undefined],
      [undefined, undefined],
    ]);
    expect(view.results[1]!.partitions[0]).toMatchObject({ section: 2, tags: { user: ['alice'] } });
    expect(view.results[0]!.partitions[0]!.tags).toEqual({ user: ['alice'] });
    expect(searchText(view)).toContain('- relevance 0.900, page 3:\n  passage 0');
  });

  it('list each source of an answer once, with its pages', () => {
    const answer: MemoryAnswer = {
      question: 'q',
      noResult: false,
      text: 'The answer.',
      relevantSources: [citation({}, [4, 2, 4])],
      tokenUsage: [],
    };
    const view = askView(answer);
    expect(view.sources).toEqual([
      {
        documentId: 'doc',
        index: 'default',
        fileName: 'report.pdf',
        contentType: 'application/pdf',
        link: 'default/doc/file',
        pages: [2, 4],
        relevance: 0.9,
      },
    ]);
    expect(askText(view)).toBe('The answer.\n\nSources:\n[1] report.pdf (document doc, index default, page 2, 4) default/doc/file');
  });
});
