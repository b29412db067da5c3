import { type MemoryDbCapabilities, SEARCH_MODES, type SearchMode } from '../contracts/memory-db.js';
import { InvalidInputError } from '../errors/km-error.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { fuseRankings, type ResolvedFusion } from './hybrid-fusion.js';
import { rankResults } from './result-order.js';
import { cosineSimilarity } from './vector-math.js';

/** Candidates each side of a hybrid search fetches before fusion: `max(limit, 50)`. */
export function hybridCandidates(limit: number): number {
  return Math.max(limit, 50);
}

/** The search mode asked for (default `vector`); `invalid_argument` for anything else. */
export function checkSearchMode(mode: unknown, connector: string): SearchMode {
  if (mode === undefined || mode === null) return 'vector';
  if (SEARCH_MODES.includes(mode as SearchMode)) return mode as SearchMode;
  throw new InvalidInputError('invalid_argument', `search mode must be ${SEARCH_MODES.join(', ')}, got ${JSON.stringify(mode)}`, {
    connector,
  });
}

/** Refuses `lexical` without the `lexicalSearch` capability, and `hybrid` without it and `vectorSearch` (`invalid_argument`). */
export function checkModeSupported(capabilities: Required<MemoryDbCapabilities>, mode: SearchMode, connector: string): void {
  if (capabilities.lexicalSearch && (mode !== 'hybrid' || capabilities.vectorSearch)) return;
  const needs = mode === 'hybrid' ? 'both vector and lexical search' : 'lexical search';
  throw new InvalidInputError('invalid_argument', `${connector} cannot run a ${mode} search: it has no ${needs}`, { connector });
}

/**
 * The words of a `lexical` or `hybrid` query: the query when it is a string, else `text`;
 * `invalid_argument` when there are none (missing, or only white space).
 */
export function lexicalQueryText(query: unknown, text: unknown, mode: SearchMode, connector: string): string {
  const words = typeof query === 'string' ? query : text;
  if (typeof words !== 'string') {
    throw new InvalidInputError('invalid_argument', `a ${mode} search with a vector query needs the query's words in options.text`, {
      connector,
    });
  }
  if (words.trim().length === 0) {
    throw new InvalidInputError('invalid_argument', `a ${mode} search needs a query with words, got ${JSON.stringify(words)}`, {
      connector,
    });
  }
  return words;
}

/** What {@link fuseHybrid} combines. */
export interface HybridSides {
  /** The vector side's results, with their cosine similarity. */
  vector: Array<[MemoryRecord, number]>;
  /** The lexical side's results, with their lexical score; records carry their vectors. */
  lexical: Array<[MemoryRecord, number]>;
  queryVector: ArrayLike<number>;
  minRelevance: number;
  limit: number;
  fusion: ResolvedFusion;
}

/**
 * Fuses the two sides of a hybrid search: each lexical hit gets its cosine similarity to the
 * query vector (from the vector side when there, else computed from its vector), results whose
 * cosine is below `minRelevance` are dropped on both sides, the rankings are fused
 * ({@link fuseRankings}, each lexical hit with its cosine) and cut to `limit`. Yields
 * `[record, cosine]` in fused order.
 */
export function fuseHybrid(sides: HybridSides): Array<[MemoryRecord, number]> {
  const cosines = new Map<string, number>();
  const records = new Map<string, MemoryRecord>();
  const vectorRanked = rankResults(sides.vector.filter(([, cosine]) => cosine >= sides.minRelevance));
  for (const [record, cosine] of vectorRanked) {
    cosines.set(record.id, cosine);
    records.set(record.id, record);
  }
  const lexicalRanked: Array<[string, number]> = [];
  for (const [record, score] of rankResults([...sides.lexical])) {
    const cosine = cosines.get(record.id) ?? cosineOf(record, sides.queryVector);
    if (cosine < sides.minRelevance) continue;
    cosines.set(record.id, cosine);
    records.set(record.id, record); // carries its vector, for withEmbeddings
    lexicalRanked.push([record.id, score]);
  }
  const fused = fuseRankings(
    vectorRanked.map(([r, cosine]) => [r.id, cosine] as const),
    lexicalRanked,
    sides.fusion,
    cosines,
  );
  return fused.slice(0, sides.limit).map(({ id }) => [records.get(id)!, cosines.get(id)!]);
}

function cosineOf(record: MemoryRecord, query: ArrayLike<number>): number {
  return record.vector.length === query.length ? cosineSimilarity(record.vector, query) : 0;
}
