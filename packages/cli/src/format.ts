import type { Citation, MemoryAnswer, SearchResult } from '@km/core';

/** Search results as text: one block per source with its best partitions. */
export function formatSearch(result: SearchResult): string {
  if (result.noResult) return 'No results.\n';
  const lines: string[] = [];
  for (const citation of result.results) {
    lines.push(`${citation.sourceName} (document ${citation.documentId}, index ${citation.index})`);
    for (const p of citation.partitions) {
      const where = p.sectionNumber > 0 ? `, ${isPdf(citation) ? 'page' : 'section'} ${p.sectionNumber}` : '';
      lines.push(`  [${p.relevance.toFixed(3)}${where}] ${oneLine(p.text, 200)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The sources of an answer, numbered, each once (the same file cited twice is merged), with the
 * pages (PDF) or sections its passages come from: `[1] report.pdf: p. 3, 5 (document report)`.
 * The numbers are those of the extractive answer's quotes (`> "…" [1, page 3]`), which number
 * the answer's relevant sources in order. A web page's URL is shown; the service-relative
 * `/download?...` link of an uploaded file is not (the name and document id say more).
 */
export function formatSources(answer: MemoryAnswer): string {
  const sources = uniqueSources(answer.relevantSources);
  if (sources.length === 0) return '';
  const url = (u: string | undefined) => (u && /^https?:\/\//i.test(u) ? `, ${u}` : '');
  const lines = sources.map((s, i) => {
    const where = sourceLocations(s.citation, s.sections);
    return `  [${i + 1}] ${s.citation.sourceName}${where ? `: ${where}` : ''} (document ${s.citation.documentId}${url(s.citation.sourceUrl)})`;
  });
  return `\nSources:\n${lines.join('\n')}\n`;
}

interface UniqueSource {
  citation: Citation;
  /** The section numbers (pages of a PDF) of every partition cited from it. */
  sections: Set<number>;
}

/** One entry per file (index, document, file), in the order of first mention. */
function uniqueSources(citations: readonly Citation[]): UniqueSource[] {
  const byFile = new Map<string, UniqueSource>();
  for (const citation of citations) {
    const key = JSON.stringify([citation.index, citation.documentId, citation.fileId]);
    const source = byFile.get(key) ?? { citation, sections: new Set<number>() };
    byFile.set(key, source);
    for (const p of citation.partitions) if (p.sectionNumber > 0) source.sections.add(p.sectionNumber);
  }
  return [...byFile.values()];
}

/** `p. 3, 5` for a PDF, `section 2` or `sections 1–4, 7` otherwise; empty when the format has no sections. */
export function sourceLocations(citation: Pick<Citation, 'sourceContentType'>, sections: Iterable<number>): string {
  const numbers = [...new Set(sections)].filter((n) => n > 0).sort((a, b) => a - b);
  if (numbers.length === 0) return '';
  const list = numberRuns(numbers);
  if (isPdf(citation)) return `p. ${list}`;
  return `${numbers.length === 1 ? 'section' : 'sections'} ${list}`;
}

/** Sorted numbers as a list, runs of three or more as ranges: `1–3, 5, 7, 8`. */
function numberRuns(sorted: readonly number[]): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === (sorted[i - 1] as number) + 1) continue;
    const run = sorted.slice(start, i);
    parts.push(run.length >= 3 ? `${run[0]}–${run[run.length - 1]}` : run.join(', '));
    start = i;
  }
  return parts.join(', ');
}

const isPdf = (citation: Pick<Citation, 'sourceContentType'>) => citation.sourceContentType === 'application/pdf';

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
