import { ReservedTags } from '../models/constants.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { EXTRACTIVE_PREAMBLE, type QuotedSentence } from './extractive-answer.js';

/**
 * The answer text quoting each sentence once, with the numbers of the sources that hold it and,
 * when known, the page (PDF) or section of the quote: `> "…" [1, page 3][2]`. Source `n` is the
 * answer's `n`-th relevant source (`citationNumber` gives it, 1-based): the text does not list
 * the sources again, so that every client (KM's, the CLI, MCP, the console) shows them once,
 * from `relevantSources`, as it does for an answer written by a model.
 */
export function formatExtractiveAnswer(sentences: readonly QuotedSentence[], citationNumber: (record: MemoryRecord) => number): string {
  const lines = sentences.map((s) => {
    const refs = new Map<number, string>();
    for (const record of [s.record, ...s.duplicates.map(([r]) => r)]) {
      const n = citationNumber(record);
      if (!refs.has(n)) refs.set(n, locationOf(record));
    }
    return `> "${s.text}" ${[...refs].map(([n, where]) => `[${n}${where ? `, ${where}` : ''}]`).join('')}`;
  });
  return `${EXTRACTIVE_PREAMBLE}\n\n${lines.join('\n')}`;
}

/**
 * Where in its source a record is: `page N` for a PDF, `section N` for other formats with
 * sections (the `__sect_n` tag, as citations read it, else a numeric `page` payload field);
 * empty when unknown (plain text has section 0).
 */
export function locationOf(record: MemoryRecord): string {
  const tagged = Number(record.tags[ReservedTags.sectionNumber]?.[0]);
  const page = Number(record.payload.page);
  const isPdf = (record.tags[ReservedTags.fileType]?.[0] ?? '') === 'application/pdf';
  if (Number.isInteger(tagged) && tagged > 0) return `${isPdf ? 'page' : 'section'} ${tagged}`;
  if (Number.isInteger(page) && page > 0) return `page ${page}`;
  return '';
}
