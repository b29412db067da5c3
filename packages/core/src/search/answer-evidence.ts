import { BM25_B, BM25_K1 } from '../text-search/bm25-index.js';

/** A retrieved passage as the evidence reads it: its content terms and its relevance. */
export interface EvidencePassage {
  /** Its content terms (`contentTerms` of the whole partition text, context line included). */
  terms: readonly string[];
  /** Its relevance: the cosine with the question in `vector` and `hybrid` modes. */
  relevance: number;
}

/** How much the retrieved passages support answering a question, from its words and its meaning. */
export interface AnswerEvidence {
  /**
   * Word evidence, in [0, 1): the best BM25 score of the first passages for the question's terms,
   * normalised by its bound (`Σ idf · (k1 + 1)`), with the document frequencies and lengths of the
   * whole retrieved pool. A term no retrieved passage holds weighs the most, so a question about
   * something memory never mentions scores low; a passage holding every rare term scores high.
   */
  lexical: number;
  /** Meaning evidence: the best relevance (cosine) of the first passages. */
  cosine: number;
}

/** Passages (best first) whose evidence counts: the answer quotes from the first few. */
export const EVIDENCE_PASSAGES = 5;

/**
 * The evidence that `passages` (the whole retrieved pool, best first; the statistics come from
 * all of them, the best score from the first {@link EVIDENCE_PASSAGES}) answer a question whose
 * content terms are `question`. The pool stands in for the index: a connector-neutral estimate
 * of how rare each word is, computed the same way whatever the memory DB.
 *
 * ```ts
 * answerEvidence(questionTerms('What colour is the ferry?'), pool) // { lexical: 0.31, cosine: 0.52 }
 * ```
 */
export function answerEvidence(question: readonly string[], passages: readonly EvidencePassage[]): AnswerEvidence {
  const terms = [...new Set(question)];
  const first = passages.slice(0, EVIDENCE_PASSAGES);
  const cosine = first.length > 0 ? Math.max(...first.map((p) => p.relevance)) : 0;
  if (terms.length === 0 || passages.length === 0) return { lexical: 0, cosine };
  const asked = new Set(terms);
  const df = new Map<string, number>();
  let totalLength = 0;
  for (const p of passages) {
    totalLength += p.terms.length;
    for (const t of new Set(p.terms)) if (asked.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const n = passages.length;
  const averageLength = totalLength / n || 1;
  const idf = (t: string) => {
    const d = df.get(t) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  const bound = terms.reduce((sum, t) => sum + idf(t) * (BM25_K1 + 1), 0);
  let lexical = 0;
  for (const p of first) {
    const tf = new Map<string, number>();
    for (const t of p.terms) if (asked.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    const lengthNorm = 1 - BM25_B + (BM25_B * p.terms.length) / averageLength;
    let score = 0;
    for (const [t, f] of tf) score += (idf(t) * f * (BM25_K1 + 1)) / (f + BM25_K1 * lengthNorm);
    lexical = Math.max(lexical, score / bound);
  }
  return { lexical, cosine };
}
