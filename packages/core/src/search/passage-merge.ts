import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import { contentTerms } from './answer-terms.js';

/** A passage quoted once, with every record that holds it (the same text in other documents). */
export interface MergedPassage {
  text: string;
  record: MemoryRecord;
  relevance: number;
  /** The other records holding the same (or nearly the same) text, with their relevance. */
  duplicates: Array<[MemoryRecord, number]>;
  /** Its content terms (see `contentTerms`). */
  terms: string[];
}

/** Token-set Jaccard similarity at or above which two passages count as one. */
export const NEAR_DUPLICATE_JACCARD = 0.9;

/**
 * Merges near-duplicate passages, keeping the first (most relevant) of each group: the same
 * text once whitespace and case are normalised, or content-term sets with a Jaccard similarity
 * of at least {@link NEAR_DUPLICATE_JACCARD}. Order is kept.
 */
export function mergeNearDuplicates(matches: ReadonlyArray<[MemoryRecord, number]>): MergedPassage[] {
  const out: MergedPassage[] = [];
  const byText = new Map<string, MergedPassage>();
  const sets: Array<Set<string>> = [];
  for (const [record, relevance] of matches) {
    const text = String(record.payload[PayloadFields.text] ?? '');
    const key = text.replace(/\s+/g, ' ').trim().toLowerCase();
    if (key === '') continue;
    const terms = contentTerms(text);
    const set = new Set(terms);
    const same = byText.get(key) ?? out.find((_, i) => jaccard(set, sets[i]!) >= NEAR_DUPLICATE_JACCARD);
    if (same) {
      if (same.record !== record && !same.duplicates.some(([r]) => r === record)) same.duplicates.push([record, relevance]);
      continue;
    }
    const passage: MergedPassage = { text, record, relevance, duplicates: [], terms };
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
