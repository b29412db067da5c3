import type { MemoryAnswer, SearchResult } from '@km/core';

/** Search results as text: one block per source with its best partitions. */
export function formatSearch(result: SearchResult): string {
  if (result.noResult) return 'No results.\n';
  const lines: string[] = [];
  for (const citation of result.results) {
    lines.push(`${citation.sourceName} (document ${citation.documentId}, index ${citation.index})`);
    for (const p of citation.partitions) {
      const where = p.sectionNumber > 0 ? `, section ${p.sectionNumber}` : '';
      lines.push(`  [${p.relevance.toFixed(3)}${where}] ${oneLine(p.text, 200)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The sources of an answer, numbered. A web page's URL is shown; the service-relative
 * `/download?...` link of an uploaded file is not (the name and document id say more).
 */
export function formatSources(answer: MemoryAnswer): string {
  if (answer.relevantSources.length === 0) return '';
  const url = (u: string | undefined) => (u && /^https?:\/\//i.test(u) ? `, ${u}` : '');
  const lines = answer.relevantSources.map((s, i) => `  [${i + 1}] ${s.sourceName} (document ${s.documentId}${url(s.sourceUrl)})`);
  return `\nSources:\n${lines.join('\n')}\n`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
