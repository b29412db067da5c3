import type { HybridFusion } from '../contracts/memory-db.js';
import { InvalidInputError } from '../errors/km-error.js';
import { compareRecordIds } from './result-order.js';

/** A {@link HybridFusion} with its defaults applied and checked. */
export type ResolvedFusion = Required<HybridFusion>;

/** Defaults of {@link HybridFusion}. */
export const DEFAULT_FUSION: ResolvedFusion = Object.freeze({ method: 'weighted', vectorWeight: 0.25, rrfK: 60 });

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
 * - `rrf`: `vectorWeight / (rrfK + vectorRank) + (1 − vectorWeight) / (rrfK + lexicalRank)`, ranks
 *   1-based; the default weight 0.5 gives both sides the same say.
 * - `weighted`: `vectorWeight · cosine + (1 − vectorWeight) · lexical score`.
 *
 * A record absent from one side gets nothing from that side.
 */
export function fuseRankings(
  vector: ReadonlyArray<readonly [string, number]>,
  lexical: ReadonlyArray<readonly [string, number]>,
  fusion: ResolvedFusion,
): FusedHit[] {
  const scores = new Map<string, number>();
  const add = (ranking: ReadonlyArray<readonly [string, number]>, weight: number) => {
    ranking.forEach(([id, score], i) => {
      const part = fusion.method === 'rrf' ? weight / (fusion.rrfK + i + 1) : weight * score;
      scores.set(id, (scores.get(id) ?? 0) + part);
    });
  };
  add(vector, fusion.vectorWeight);
  add(lexical, 1 - fusion.vectorWeight);
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || compareRecordIds(a.id, b.id));
}
