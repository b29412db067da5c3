import type { HybridFusion, SearchMode } from '../contracts/memory-db.js';
import { InvalidInputError } from '../errors/km-error.js';

const MODES: readonly SearchMode[] = ['vector', 'lexical', 'hybrid'];

/** Refuses a `mode` that is not `vector`, `lexical` or `hybrid` (`invalid_argument` naming the field). */
export function checkMode(mode: unknown): SearchMode | undefined {
  if (mode === undefined) return undefined;
  if (typeof mode !== 'string' || !MODES.includes(mode as SearchMode)) {
    throw new InvalidInputError('invalid_argument', `mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(mode) ?? String(mode)}`);
  }
  return mode as SearchMode;
}

/** Refuses a `rerank` that is not a boolean or `'mmr'`. */
export function checkRerank(rerank: unknown): boolean | 'mmr' | undefined {
  if (rerank === undefined || typeof rerank === 'boolean' || rerank === 'mmr') return rerank;
  throw new InvalidInputError('invalid_argument', `rerank must be true, false or "mmr", got ${JSON.stringify(rerank) ?? String(rerank)}`);
}

/** Refuses an ill-typed `fusion` (method, vectorWeight in [0, 1], rrfK > 0). */
export function checkFusion(fusion: unknown): HybridFusion | undefined {
  if (fusion === undefined) return undefined;
  if (fusion === null || typeof fusion !== 'object' || Array.isArray(fusion)) {
    throw new InvalidInputError('invalid_argument', 'fusion must be an object');
  }
  const { method, vectorWeight, rrfK } = fusion as Record<string, unknown>;
  if (method !== undefined && method !== 'rrf' && method !== 'weighted') {
    throw new InvalidInputError('invalid_argument', `fusion.method must be "rrf" or "weighted", got ${JSON.stringify(method)}`);
  }
  if (vectorWeight !== undefined && !(typeof vectorWeight === 'number' && vectorWeight >= 0 && vectorWeight <= 1)) {
    throw new InvalidInputError('invalid_argument', `fusion.vectorWeight must be a number in [0, 1], got ${String(vectorWeight)}`);
  }
  if (rrfK !== undefined && !(typeof rrfK === 'number' && Number.isFinite(rrfK) && rrfK > 0)) {
    throw new InvalidInputError('invalid_argument', `fusion.rrfK must be a positive number, got ${String(rrfK)}`);
  }
  return fusion as HybridFusion;
}
