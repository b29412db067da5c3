import { compareRecordIds } from '../memory-storage/result-order.js';
import { TopK } from '@km/embedded-engine/top-k';
import { tokenize } from './tokenizer.js';

/** BM25's term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25's document-length normalisation. */
export const BM25_B = 0.75;

/** Options of {@link Bm25Index.search}. */
export interface Bm25SearchOptions {
  /** Most results. */
  limit: number;
  /** Whether a candidate may be returned (filters); asked only of documents holding a query term, once each. */
  accept?: ((id: string) => boolean) | undefined;
}

/** The documents holding one term: slots and term frequencies in parallel typed arrays (unordered). */
class PostingList {
  slots = new Int32Array(4);
  frequencies = new Uint16Array(4);
  length = 0;

  push(slot: number, frequency: number): void {
    if (this.length === this.slots.length) {
      const slots = new Int32Array(this.length * 2);
      slots.set(this.slots);
      this.slots = slots;
      const frequencies = new Uint16Array(this.length * 2);
      frequencies.set(this.frequencies);
      this.frequencies = frequencies;
    }
    this.slots[this.length] = slot;
    this.frequencies[this.length++] = Math.min(frequency, 0xffff);
  }

  /** Removes a slot (the last entry takes its place). */
  remove(slot: number): void {
    const i = this.slots.subarray(0, this.length).indexOf(slot);
    if (i < 0) return;
    const last = --this.length;
    this.slots[i] = this.slots[last]!;
    this.frequencies[i] = this.frequencies[last]!;
  }
}

/** Options of {@link Bm25Index}. */
export interface Bm25IndexOptions {
  /**
   * The number of documents (N), when the owner keeps every document itself, blank ones
   * included: then documents without terms are not kept here at all (at a million records
   * without text, a set of a million ids and two lookups in it per write). Every document must
   * still be added (`add(id, '')` for one without text) so that a replaced one loses its terms.
   */
  documentCount?: () => number;
}

/**
 * An incremental in-memory inverted index ranked with Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's
 * idf `ln(1 + (N − df + 0.5) / (df + 0.5))`), over {@link tokenize}d text.
 *
 * A score is normalised to [0, 1): the BM25 sum divided by its upper bound for the query,
 * `Σ idf · (k1 + 1)` over the query's distinct terms (a term's part tends to `idf · (k1 + 1)`
 * as its frequency grows). A query word that no document holds still counts in the bound,
 * so a document matching every word of a query outscores one matching some of them.
 *
 * Memory: a term dictionary (term → number), a posting list per term (document slots and
 * frequencies in typed arrays, 6 bytes a posting), each document's distinct term numbers (to
 * remove it) and its length. A document without terms (no text) is only counted: it weighs
 * in N and the average length, nothing more. A search scores only the documents in its terms'
 * postings; removing a document scans the posting lists of its terms.
 *
 * ```ts
 * const index = new Bm25Index();
 * index.add('a', 'The Moon orbits the Earth');
 * index.search('moon', { limit: 5 }); // [['a', 0.45...]]
 * ```
 */
export class Bm25Index {
  private readonly termNumbers = new Map<string, number>();
  private readonly postings: PostingList[] = [];
  /** The term of each number (undefined once freed), and the numbers free for reuse. */
  private readonly terms: Array<string | undefined> = [];
  private readonly freeTerms: number[] = [];
  private readonly slots = new Map<string, number>();
  /**
   * Documents without terms: they count in N (and add 0 to the average length) but need no slot.
   * Not kept when the owner counts the documents ({@link Bm25IndexOptions.documentCount}).
   */
  private readonly blank = new Set<string>();
  private readonly documentCount: (() => number) | undefined;
  private readonly ids: Array<string | undefined> = [];
  private readonly docTerms: Array<Int32Array | undefined> = [];
  private readonly lengths: number[] = [];
  private readonly freeSlots: number[] = [];
  private totalLength = 0;
  /** Scratch term counts of the document being added (all zero between calls). */
  private counts = new Uint32Array(64);

  constructor(options: Bm25IndexOptions = {}) {
    this.documentCount = options.documentCount;
  }

  /** Number of documents. */
  get size(): number {
    return this.documentCount ? this.documentCount() : this.slots.size + this.blank.size;
  }

  /** Number of distinct terms held (a term leaves with the last document holding it). */
  get vocabularySize(): number {
    return this.termNumbers.size;
  }

  /** Adds a document, or replaces the one with this id. */
  add(id: string, text: string): void {
    this.remove(id);
    const tokens = text === '' ? [] : tokenize(text);
    if (tokens.length === 0) {
      if (!this.documentCount) this.blank.add(id);
      return;
    }
    const slot = this.freeSlots.pop() ?? this.ids.length;
    // Count per term number in a scratch array (no map per document), then post each distinct term.
    const distinct: number[] = [];
    for (const token of tokens) {
      const number = this.termNumber(token);
      const seen = this.counts[number]!;
      this.counts[number] = seen + 1;
      if (seen === 0) distinct.push(number);
    }
    for (const number of distinct) {
      this.postings[number]!.push(slot, this.counts[number]!);
      this.counts[number] = 0;
    }
    this.ids[slot] = id;
    this.docTerms[slot] = Int32Array.from(distinct);
    this.lengths[slot] = tokens.length;
    this.totalLength += tokens.length;
    this.slots.set(id, slot);
  }

  /** Removes a document; false when it was not there (or, with `documentCount`, had no terms). */
  remove(id: string): boolean {
    if (!this.documentCount && this.blank.delete(id)) return true;
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    for (const number of this.docTerms[slot]!) {
      const posting = this.postings[number]!;
      posting.remove(slot);
      if (posting.length === 0) this.freeTerm(number);
    }
    this.totalLength -= this.lengths[slot]!;
    this.ids[slot] = undefined;
    this.docTerms[slot] = undefined;
    this.lengths[slot] = 0;
    this.slots.delete(id);
    this.freeSlots.push(slot);
    return true;
  }

  /** Forgets a term no document holds any more, so a stream of one-off words does not grow memory. */
  private freeTerm(number: number): void {
    this.termNumbers.delete(this.terms[number]!);
    this.terms[number] = undefined;
    this.postings[number] = new PostingList();
    this.freeTerms.push(number);
  }

  /** The number of a term, given one on first sight (a freed number when there is one). */
  private termNumber(term: string): number {
    let number = this.termNumbers.get(term);
    if (number === undefined) {
      number = this.freeTerms.pop() ?? this.postings.length;
      this.termNumbers.set(term, number);
      this.terms[number] = term;
      if (number === this.postings.length) this.postings.push(new PostingList());
      if (number >= this.counts.length) {
        const counts = new Uint32Array(number * 2);
        counts.set(this.counts);
        this.counts = counts;
      }
    }
    return number;
  }

  /** Documents holding query terms, best first (ties by id), with their normalised score in (0, 1). */
  search(query: string, options: Bm25SearchOptions): Array<[string, number]> {
    const n = this.size;
    const distinct = [...new Set(tokenize(query))];
    if (n === 0 || distinct.length === 0 || options.limit <= 0) return [];
    const averageLength = this.totalLength / n || 1;
    let bound = 0;
    // Score per candidate slot; NaN marks one the filter refused.
    const scores = new Map<number, number>();
    for (const term of distinct) {
      const number = this.termNumbers.get(term);
      const list = number === undefined ? undefined : this.postings[number]!;
      const df = list?.length ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      bound += idf * (BM25_K1 + 1);
      for (let i = 0; i < df; i++) {
        const slot = list!.slots[i]!;
        const tf = list!.frequencies[i]!;
        let score = scores.get(slot);
        if (score === undefined) score = !options.accept || options.accept(this.ids[slot]!) ? 0 : Number.NaN;
        if (Number.isNaN(score)) {
          scores.set(slot, score);
          continue;
        }
        const lengthNorm = 1 - BM25_B + (BM25_B * this.lengths[slot]!) / averageLength;
        scores.set(slot, score + (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * lengthNorm));
      }
    }
    return best(scores, options.limit, this.ids).map(([slot, score]) => [this.ids[slot]!, Math.min(1, score / bound)]);
  }
}

/** The `limit` best positive scores, best first, ties by id order (the whole tie at the cut is sorted). */
function best(scores: Map<number, number>, limit: number, ids: ReadonlyArray<string | undefined>): Array<[number, number]> {
  let cut = 0;
  if (scores.size > limit) {
    const top = new TopK(limit);
    for (const [slot, score] of scores) if (score > top.threshold) top.push(score, slot);
    cut = top.threshold;
  }
  const kept: Array<[number, number]> = [];
  for (const [slot, score] of scores) if (score > 0 && score >= cut) kept.push([slot, score]);
  kept.sort((a, b) => b[1] - a[1] || compareRecordIds(ids[a[0]]!, ids[b[0]]!));
  return kept.length > limit ? kept.slice(0, limit) : kept;
}
