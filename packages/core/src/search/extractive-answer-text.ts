import { ReservedTags } from '../models/constants.js';
import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import { EXTRACTIVE_PREAMBLE, type QuotedSentence } from './extractive-answer.js';

/**
 * The answer text quoting each sentence once, with the numbers of every source that holds it
 * and, when known, the page (PDF) or section of the quote: `> "…" [1, page 3][2]`.
 */
export function formatExtractiveAnswer(sentences: readonly QuotedSentence[]): string {
  const sources: string[] = [];
  const lines = sentences.map((s) => {
    const refs = new Map<number, string>();
    for (const record of [s.record, ...s.duplicates.map(([r]) => r)]) {
      const name = String(record.payload[PayloadFields.file] ?? 'source');
      const documentId = record.tags[ReservedTags.documentId]?.[0] ?? '';
      const label = documentId ? `${name} (document ${documentId})` : name;
      let n = sources.indexOf(label);
      if (n < 0) n = sources.push(label) - 1;
      if (!refs.has(n + 1)) refs.set(n + 1, locationOf(record));
    }
    return `> "${s.text}" ${[...refs].map(([n, where]) => `[${n}${where ? `, ${where}` : ''}]`).join('')}`;
  });
  return `${EXTRACTIVE_PREAMBLE}\n\n${lines.join('\n')}\n\nSources: ${sources.map((s, i) => `[${i + 1}] ${s}`).join(', ')}`;
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
