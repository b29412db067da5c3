import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import { contentTerms } from './answer-terms.js';

/** A passage quoted once, with every record that holds it (the same text in other documents). */
export interface MergedPassage {
  /** What may be quoted: the partition text without its context line (see {@link quotableText}). */
  text: string;
  record: MemoryRecord;
  relevance: number;
  /** The other records holding the same (or nearly the same) text, with their relevance. */
  duplicates: Array<[MemoryRecord, number]>;
  /** Its content terms (see `contentTerms`), context line included: the title and headings count as its words. */
  terms: string[];
  /** Its context line (`payload.context`: title › headings), '' when it has none. */
  context: string;
}

/**
 * A partition's text without its context line: when `payload.context` is set, the text starts
 * with it and a blank line (the breadcrumb of its title and headings), which is searched and
 * embedded with the text but is not something an answer quotes.
 */
export function quotableText(record: MemoryRecord): string {
  const text = String(record.payload[PayloadFields.text] ?? '');
  const context = record.payload[PayloadFields.context];
  if (typeof context === 'string' && context !== '' && text.startsWith(`${context}\n\n`)) return text.slice(context.length + 2);
  return text;
}

/** Token-set Jaccard similarity at or above which two passages count as one. */
export const NEAR_DUPLICATE_JACCARD = 0.9;

/**
 * Merges near-duplicate passages, keeping the first (most relevant) of each group: the same
 * text once whitespace and case are normalised, or content-term sets with a Jaccard similarity
 * of at least {@link NEAR_DUPLICATE_JACCARD}. Order is kept. `termsOf` gives a record's content
 * terms (of its whole text, context line included), when the caller has them already.
 */
export function mergeNearDuplicates(
  matches: ReadonlyArray<[MemoryRecord, number]>,
  termsOf: (record: MemoryRecord) => string[] = (record) => contentTerms(String(record.payload[PayloadFields.text] ?? '')),
): MergedPassage[] {
  const out: MergedPassage[] = [];
  const byText = new Map<string, MergedPassage>();
  const sets: Array<Set<string>> = [];
  for (const [record, relevance] of matches) {
    const full = String(record.payload[PayloadFields.text] ?? '');
    const text = quotableText(record);
    const key = text.replace(/\s+/g, ' ').trim().toLowerCase();
    if (key === '') continue;
    const terms = termsOf(record);
    const set = new Set(terms);
    const same = byText.get(key) ?? out.find((_, i) => jaccard(set, sets[i]!) >= NEAR_DUPLICATE_JACCARD);
    if (same) {
      if (same.record !== record && !same.duplicates.some(([r]) => r === record)) same.duplicates.push([record, relevance]);
      continue;
    }
    const context = full === text ? '' : String(record.payload[PayloadFields.context]);
    const passage: MergedPassage = { text, record, relevance, duplicates: [], terms, context };
    byText.set(key, passage);
    out.push(passage);
    sets.push(set);
  }
  return out;
}

/** |a ∩ b| / |a ∪ b|; 0 when both are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / (a.size + b.size - shared);
}
