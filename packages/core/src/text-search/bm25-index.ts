import { compareRecordIds } from '../memory-storage/result-order.js';
import { TopK } from '../memory-storage/top-k.js';
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

/**
 * An incremental in-memory inverted index ranked with Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's
 * idf `ln(1 + (N − df + 0.5) / (df + 0.5))`), over {@link tokenize}d text.
 *
 * A score is normalised to [0, 1): the BM25 sum divided by its upper bound for the query,
 * `Σ idf · (k1 + 1)` over the query's distinct terms (a term's part tends to `idf · (k1 + 1)`
 * as its frequency grows). A query word that no document holds still counts in the bound,
 * so a document matching every word of a query outscores one matching some of them.
 *
 * Memory: a posting list per term (document slot → frequency), each document's distinct terms
 * (to remove it) and its length. A search scores only the documents in its terms' postings.
 *
 * ```ts
 * const index = new Bm25Index();
 * index.add('a', 'The Moon orbits the Earth');
 * index.search('moon', { limit: 5 }); // [['a', 0.45...]]
 * ```
 */
export class Bm25Index {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly slots = new Map<string, number>();
  private readonly ids: Array<string | undefined> = [];
  private readonly terms: Array<readonly string[] | undefined> = [];
  private readonly lengths: number[] = [];
  private readonly freeSlots: number[] = [];
  private totalLength = 0;

  /** Number of documents. */
  get size(): number {
    return this.slots.size;
  }

  /** Adds a document, or replaces the one with this id. */
  add(id: string, text: string): void {
    this.remove(id);
    const tokens = tokenize(text);
    const counts = new Map<string, number>();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    const slot = this.freeSlots.pop() ?? this.ids.length;
    this.ids[slot] = id;
    this.terms[slot] = [...counts.keys()];
    this.lengths[slot] = tokens.length;
    this.totalLength += tokens.length;
    this.slots.set(id, slot);
    for (const [term, count] of counts) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = new Map()));
      list.set(slot, count);
    }
  }

  /** Removes a document; false when it was not there. */
  remove(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    for (const term of this.terms[slot]!) {
      const list = this.postings.get(term)!;
      list.delete(slot);
      if (list.size === 0) this.postings.delete(term);
    }
    this.totalLength -= this.lengths[slot]!;
    this.ids[slot] = undefined;
    this.terms[slot] = undefined;
    this.lengths[slot] = 0;
    this.slots.delete(id);
    this.freeSlots.push(slot);
    return true;
  }

  /** Removes every document. */
  clear(): void {
    for (const id of [...this.slots.keys()]) this.remove(id);
  }

  /** Documents holding query terms, best first (ties by id), with their normalised score in (0, 1). */
  search(query: string, options: Bm25SearchOptions): Array<[string, number]> {
    const n = this.slots.size;
    const distinct = [...new Set(tokenize(query))];
    if (n === 0 || distinct.length === 0 || options.limit <= 0) return [];
    const averageLength = this.totalLength / n || 1;
    let bound = 0;
    // Score per candidate slot; NaN marks one the filter refused.
    const scores = new Map<number, number>();
    for (const term of distinct) {
      const list = this.postings.get(term);
      const df = list?.size ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      bound += idf * (BM25_K1 + 1);
      if (!list) continue;
      for (const [slot, tf] of list) {
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
