import type { HybridFusion } from '../contracts/memory-db.js';
import { InvalidInputError } from '../errors/km-error.js';
import { compareRecordIds } from './result-order.js';

/** A {@link HybridFusion} with its defaults applied and checked. */
export type ResolvedFusion = Required<HybridFusion>;

/**
 * Defaults of {@link HybridFusion}. The weight was fitted on half of the LoCoMo conversations
 * (the best of 0.1–0.3 there) and holds on every other evaluation set: see
 * docs/adr/0003-answers-and-fusion.md and `pnpm --filter @km/bench bench:rag`.
 */
export const DEFAULT_FUSION: ResolvedFusion = Object.freeze({ method: 'weighted', vectorWeight: 0.15, rrfK: 60 });

/** A fused result: the record id and its fused score (higher is better). */
export interface FusedHit {
  id: string;
  score: number;
}

/** Checks hybrid fusion options and applies defaults; `invalid_argument` names what is wrong. */
export function checkFusion(fusion: HybridFusion | undefined, connector?: string): ResolvedFusion {
  const options = connector ? { connector } : {};
  if (fusion === undefined || fusion === null) return DEFAULT_FUSION;
  if (typeof fusion !== 'object') throw new InvalidInputError('invalid_argument', 'fusion must be an object', options);
  const method = fusion.method ?? DEFAULT_FUSION.method;
  if (method !== 'rrf' && method !== 'weighted') {
    throw new InvalidInputError('invalid_argument', `fusion.method must be "rrf" or "weighted", got ${JSON.stringify(method)}`, options);
  }
  const vectorWeight = fusion.vectorWeight ?? DEFAULT_FUSION.vectorWeight;
  if (typeof vectorWeight !== 'number' || !(vectorWeight >= 0 && vectorWeight <= 1)) {
    throw new InvalidInputError('invalid_argument', `fusion.vectorWeight must be a number in [0, 1], got ${String(vectorWeight)}`, options);
  }
  const rrfK = fusion.rrfK ?? DEFAULT_FUSION.rrfK;
  if (typeof rrfK !== 'number' || !Number.isFinite(rrfK) || rrfK <= 0) {
    throw new InvalidInputError('invalid_argument', `fusion.rrfK must be a positive number, got ${String(rrfK)}`, options);
  }
  return { method, vectorWeight, rrfK };
}

/**
 * Fuses a vector ranking (ids with cosine similarity, best first) and a lexical ranking (ids
 * with lexical score in [0, 1], best first) into one, best first, ties by id.
 *
 * - `weighted`: every candidate of either side scores `vectorWeight · cosine + (1 − vectorWeight)
 *   · lexical score`. A lexical hit outside the vector ranking still gets its cosine, from
 *   `cosines` (the hybrid search computes it from the record's vector); a vector hit outside the
 *   lexical ranking gets lexical score 0 (it holds none of the words, or fewer than the last
 *   lexical hit). Scoring both sides' candidates the same way matters: giving a one-sided hit
 *   nothing from the other side hands the vector side's candidates a bonus of `vectorWeight ·
 *   cosine` for being in its list at all, which a weak embedding model turns into noise (it cost
 *   3 points of nDCG@10 on LoCoMo, 11 on SciFact). Each side's say in a query is the spread of
 *   its scores among the candidates: a dense side that cannot tell them apart (flat cosines)
 *   barely moves the order, one that singles a passage out does.
 * - `rrf`: `vectorWeight / (rrfK + vectorRank) + (1 − vectorWeight) / (rrfK + lexicalRank)`, ranks
 *   1-based; a record absent from one ranking gets nothing from it.
 */
export function fuseRankings(
  vector: ReadonlyArray<readonly [string, number]>,
  lexical: ReadonlyArray<readonly [string, number]>,
  fusion: ResolvedFusion,
  cosines: ReadonlyMap<string, number> = new Map(),
): FusedHit[] {
  const scores = new Map<string, number>();
  const w = fusion.vectorWeight;
  if (fusion.method === 'rrf') {
    vector.forEach(([id], i) => scores.set(id, w / (fusion.rrfK + i + 1)));
    lexical.forEach(([id], i) => scores.set(id, (scores.get(id) ?? 0) + (1 - w) / (fusion.rrfK + i + 1)));
  } else {
    for (const [id, cosine] of vector) scores.set(id, w * cosine);
    for (const [id, score] of lexical) scores.set(id, (scores.get(id) ?? w * (cosines.get(id) ?? 0)) + (1 - w) * score);
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || compareRecordIds(a.id, b.id));
}
