import { type HybridFusion, type RetrievalOptions, SEARCH_MODES, type SearchMode } from '@km/core';
import { HttpProblem } from './problem-details.js';

/** km's additions to KM's search and ask bodies: how to search and whether to rerank. All optional. */
export interface SearchModeFields {
  /** `vector`, `lexical` or `hybrid`. @default the service's KM_SEARCH_MODE, else core's default */
  mode?: SearchMode | null;
  /** How `hybrid` fuses its two rankings. */
  fusion?: { method?: 'rrf' | 'weighted' | null; vectorWeight?: number | null; rrfK?: number | null } | null;
  /** `true` (the configured reranker), `'mmr'` (diversity) or `false`. @default the configured reranker, if any */
  rerank?: boolean | 'mmr' | null;
}

/** The values of `fusion.method`. */
export const FUSION_METHODS: readonly NonNullable<HybridFusion['method']>[] = ['rrf', 'weighted'];

const invalid = (message: string) => new HttpProblem(400, message, 'invalid_argument');

/**
 * Reads `mode`, `fusion` and `rerank` from a request body, checking their types (a wrong one is
 * a 400 naming the field); absent or null fields are left out, so the memory's defaults apply
 * and KM's clients, which send none of them, are served as before. Ranges (`vectorWeight` in
 * [0, 1], `rrfK` > 0) are core's to check.
 */
export function readSearchModeFields(body: SearchModeFields): Pick<RetrievalOptions, 'mode' | 'fusion' | 'rerank'> {
  const out: Pick<RetrievalOptions, 'mode' | 'fusion' | 'rerank'> = {};
  if (body.mode !== undefined && body.mode !== null) {
    if (!SEARCH_MODES.includes(body.mode)) throw invalid(`'mode' must be 'vector', 'lexical' or 'hybrid', got ${describe(body.mode)}`);
    out.mode = body.mode;
  }
  if (body.fusion !== undefined && body.fusion !== null) out.fusion = readFusion(body.fusion);
  if (body.rerank !== undefined && body.rerank !== null) {
    if (typeof body.rerank !== 'boolean' && body.rerank !== 'mmr') {
      throw invalid(`'rerank' must be true, false or 'mmr', got ${describe(body.rerank)}`);
    }
    out.rerank = body.rerank;
  }
  return out;
}

function readFusion(fusion: unknown): HybridFusion {
  if (typeof fusion !== 'object' || fusion === null || Array.isArray(fusion)) {
    throw invalid(`'fusion' must be an object such as {"method": "rrf", "rrfK": 60}, got ${describe(fusion)}`);
  }
  const out: HybridFusion = {};
  for (const [key, value] of Object.entries(fusion as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    if (key === 'method') {
      if (!FUSION_METHODS.includes(value as 'rrf')) throw invalid(`'fusion.method' must be 'rrf' or 'weighted', got ${describe(value)}`);
      out.method = value as 'rrf' | 'weighted';
    } else if (key === 'vectorWeight' || key === 'rrfK') {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`'fusion.${key}' must be a number, got ${describe(value)}`);
      out[key] = value;
    } else {
      throw invalid(`'fusion.${key.slice(0, 40)}' is unknown: fusion takes method, vectorWeight and rrfK`);
    }
  }
  return out;
}

/** A short, safe rendering of a client's value for an error message. */
function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
