import { type HybridFusion, SEARCH_MODES, type SearchMode } from '../contracts/memory-db.js';
import { InvalidInputError } from '../errors/km-error.js';
import { checkFusion as resolveFusion } from '../memory-storage/hybrid-fusion.js';

/** Refuses a `mode` that is not `vector`, `lexical` or `hybrid` (`invalid_argument` naming the field). */
export function checkMode(mode: unknown): SearchMode | undefined {
  if (mode === undefined) return undefined;
  if (typeof mode !== 'string' || !SEARCH_MODES.includes(mode as SearchMode)) {
    throw new InvalidInputError(
      'invalid_argument',
      `mode must be one of ${SEARCH_MODES.join(', ')}, got ${JSON.stringify(mode) ?? String(mode)}`,
    );
  }
  return mode as SearchMode;
}

/** Refuses a `rerank` that is not a boolean or `'mmr'`. */
export function checkRerank(rerank: unknown): boolean | 'mmr' | undefined {
  if (rerank === undefined || typeof rerank === 'boolean' || rerank === 'mmr') return rerank;
  throw new InvalidInputError('invalid_argument', `rerank must be true, false or "mmr", got ${JSON.stringify(rerank) ?? String(rerank)}`);
}

/**
 * Refuses an ill-typed `fusion` before retrieval starts, with the memory DB wrapper's own checks
 * (method, vectorWeight in [0, 1], rrfK > 0); null and arrays are refused here too. Returns it as given.
 */
export function checkFusion(fusion: unknown): HybridFusion | undefined {
  if (fusion === undefined) return undefined;
  if (fusion === null || typeof fusion !== 'object' || Array.isArray(fusion)) {
    throw new InvalidInputError('invalid_argument', 'fusion must be an object');
  }
  resolveFusion(fusion as HybridFusion);
  return fusion as HybridFusion;
}
