/** Inverse document frequencies of terms over a set of passages (BM25's smoothed IDF, always > 0). */
export class TermWeights {
  private readonly df = new Map<string, number>();
  private readonly count: number;

  constructor(passages: ReadonlyArray<readonly string[]>) {
    this.count = passages.length;
    for (const terms of passages) for (const t of new Set(terms)) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /** A term's weight: high when few passages hold it; highest when none does. */
  idf(term: string): number {
    const df = this.df.get(term) ?? 0;
    return Math.log(1 + (this.count - df + 0.5) / (df + 0.5));
  }

  /**
   * The share of the query's term weight found in `terms`, in [0, 1]: 1 when every query term
   * is there, 0 when none is (or the query has no content word).
   */
  coverage(query: readonly string[], terms: ReadonlySet<string>): number {
    let total = 0;
    let found = 0;
    for (const t of new Set(query)) {
      const w = this.idf(t);
      total += w;
      if (terms.has(t)) found += w;
    }
    return total > 0 ? found / total : 0;
  }
}
