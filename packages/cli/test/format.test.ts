import { describe, expect, it } from 'vitest';
import { type Citation, type CitationPartition, EXTRACTIVE_PREAMBLE, type MemoryAnswer } from '@km/core';
import { formatSearch, formatSources } from '../src/format.js';

const partition = (sectionNumber: number, partitionNumber = 0): CitationPartition => ({
  text: `passage ${partitionNumber}`,
  relevance: 0.5,
  partitionNumber,
  sectionNumber,
  lastUpdate: '2026-01-01T00:00:00Z',
  tags: {},
});

const citation = (over: Partial<Citation> & Pick<Citation, 'documentId' | 'sourceName'>, sections: number[]): Citation => ({
  link: `default/${over.documentId}/f1`,
  index: 'default',
  fileId: 'f1',
  sourceContentType: 'text/plain',
  ...over,
  partitions: sections.map((n, i) => partition(n, i)),
});

const answer = (relevantSources: Citation[]): MemoryAnswer => ({
  question: 'q',
  noResult: false,
  text: 'a',
  relevantSources,
  tokenUsage: [],
});

describe('formatSources', () => {
  it('lists the sources of an extractive answer, numbered as its quotes number them', () => {
    const pdf = citation({ documentId: 'report', sourceName: 'report.pdf', sourceContentType: 'application/pdf' }, [3]);
    const notes = citation({ documentId: 'notes', sourceName: 'notes.md' }, []);
    const extractive = { ...answer([pdf, notes]), text: `${EXTRACTIVE_PREAMBLE}\n\n> "x" [1, page 3]\n> "y" [2]` };
    expect(formatSources(extractive)).toBe('\nSources:\n  [1] report.pdf: p. 3 (document report)\n  [2] notes.md (document notes)\n');
  });

  it('shows the pages of a PDF citation, sorted, each once', () => {
    const pdf = citation({ documentId: 'report', sourceName: 'report.pdf', sourceContentType: 'application/pdf' }, [5, 3, 5]);
    expect(formatSources(answer([pdf]))).toBe('\nSources:\n  [1] report.pdf: p. 3, 5 (document report)\n');
  });

  it('lists a source cited twice once, with the pages of both citations', () => {
    const pdf = { documentId: 'report', sourceName: 'report.pdf', sourceContentType: 'application/pdf' };
    const notes = citation({ documentId: 'notes', sourceName: 'notes.md', fileId: 'f2' }, [0]);
    const text = formatSources(answer([citation(pdf, [7]), notes, citation(pdf, [2, 7])]));
    expect(text).toBe('\nSources:\n  [1] report.pdf: p. 2, 7 (document report)\n  [2] notes.md (document notes)\n');
  });

  it('keeps two files of one document apart, and two documents with the same file name', () => {
    const a = citation({ documentId: 'd1', sourceName: 'a.pdf', sourceContentType: 'application/pdf' }, [1]);
    const b = citation({ documentId: 'd1', sourceName: 'b.pdf', fileId: 'f2', sourceContentType: 'application/pdf' }, [4]);
    const other = citation({ documentId: 'd2', sourceName: 'a.pdf', sourceContentType: 'application/pdf' }, [9]);
    expect(formatSources(answer([a, b, other]))).toBe(
      '\nSources:\n  [1] a.pdf: p. 1 (document d1)\n  [2] b.pdf: p. 4 (document d1)\n  [3] a.pdf: p. 9 (document d2)\n',
    );
  });

  it('names sections for other formats, runs of three or more as ranges, and shows a web page URL', () => {
    const deck = citation(
      { documentId: 'deck', sourceName: 'deck.pptx', sourceContentType: 'application/vnd.ms-powerpoint' },
      [4, 1, 2, 3, 7],
    );
    const page = citation({ documentId: 'web', sourceName: 'page', sourceUrl: 'https://example.com/page', fileId: 'f3' }, [2]);
    const uploaded = citation(
      { documentId: 'up', sourceName: 'up.txt', sourceUrl: '/download?index=default&documentId=up', fileId: 'f4' },
      [],
    );
    expect(formatSources(answer([deck, page, uploaded]))).toBe(
      '\nSources:\n  [1] deck.pptx: sections 1–4, 7 (document deck)\n  [2] page: section 2 (document web, https://example.com/page)\n  [3] up.txt (document up)\n',
    );
  });

  it('prints nothing without sources', () => {
    expect(formatSources(answer([]))).toBe('');
  });
});

describe('formatSearch', () => {
  it('names the page of a PDF partition and the section of others', () => {
    const pdf = citation({ documentId: 'report', sourceName: 'report.pdf', sourceContentType: 'application/pdf' }, [3]);
    const md = citation({ documentId: 'notes', sourceName: 'notes.md', fileId: 'f2' }, [2]);
    expect(formatSearch({ query: 'q', noResult: false, results: [pdf, md] })).toBe(
      'report.pdf (document report, index default)\n  [0.500, page 3] passage 0\nnotes.md (document notes, index default)\n  [0.500, section 2] passage 0\n',
    );
  });
});
