import type { ITextReranker, RerankCandidate, RerankOptions, RerankResult } from '../contracts/text-reranker.js';
import { InvalidInputError } from '../errors/km-error.js';
import { cosineSimilarity } from '../memory-storage/vector-math.js';

/** Options of {@link MmrReranker}. */
export interface MmrRerankerOptions {
  /**
   * Trade-off between relevance and diversity, in [0, 1]: 1 ranks by relevance alone, 0 by
   * novelty alone. @default 0.5
   */
  lambda?: number;
}

/**
 * Maximal marginal relevance: picks, one at a time, the candidate maximising
 * `λ · sim(query, c) − (1 − λ) · max sim(c, picked)` over the candidates' embeddings, so a
 * near-duplicate of a passage already picked drops below a distinct one. Needs the candidates'
 * vectors and the query's (`needsVectors`); without a query vector it uses each candidate's
 * retrieval relevance. The score returned is the candidate's marginal relevance when picked.
 *
 * ```ts
 * const order = await new MmrReranker({ lambda: 0.7 }).rerank(query, candidates, { queryVector });
 * ```
 */
export class MmrReranker implements ITextReranker {
  readonly name = 'mmr';
  readonly needsVectors = true;
  private readonly lambda: number;

  constructor(options: MmrRerankerOptions = {}) {
    const lambda = options.lambda ?? 0.5;
    if (typeof lambda !== 'number' || !(lambda >= 0 && lambda <= 1)) {
      throw new InvalidInputError('invalid_argument', `MMR lambda must be a number in [0, 1], got ${String(lambda)}`);
    }
    this.lambda = lambda;
  }

  async rerank(_query: string, candidates: readonly RerankCandidate[], options: RerankOptions = {}): Promise<RerankResult[]> {
    options.signal?.throwIfAborted();
    const top = Math.min(options.top ?? candidates.length, candidates.length);
    // The retrieval's judgement of each candidate (its cosine, or its rank in a fused order).
    const relevance = candidates.map((c) => c.relevance);
    // Highest similarity of each remaining candidate to those already picked.
    const closest = candidates.map(() => Number.NEGATIVE_INFINITY);
    const remaining = new Set(candidates.keys());
    const out: RerankResult[] = [];
    while (out.length < top) {
      let best = -1;
      let bestScore = Number.NEGATIVE_INFINITY;
      for (const i of remaining) {
        const redundancy = out.length === 0 ? 0 : closest[i]!;
        const score = this.lambda * relevance[i]! - (1 - this.lambda) * redundancy;
        if (score > bestScore) {
          best = i;
          bestScore = score;
        }
      }
      remaining.delete(best);
      out.push({ index: best, score: bestScore });
      const picked = candidates[best]!.vector;
      for (const i of remaining) {
        const v = candidates[i]!.vector;
        const sim = picked && v ? cosineSimilarity(picked, v) : 0;
        if (sim > closest[i]!) closest[i] = sim;
      }
    }
    return out;
  }
}
