import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { ITextReranker, RerankCandidate } from '../contracts/text-reranker.js';
import { InvalidInputError } from '../errors/km-error.js';
import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import { MmrReranker } from '../rerank/mmr-reranker.js';

/** Most retrieved candidates handed to a reranker; the rest keep their retrieval order after them. */
export const RERANK_CANDIDATES = 50;

type Match = [MemoryRecord, number];

/**
 * The reranker a request gets: none for `false`; core's MMR for `'mmr'`; the configured one for
 * `true` (refused with `invalid_argument` when none is configured); the configured one, if any,
 * when the request does not say.
 */
export function chooseReranker(rerank: boolean | 'mmr' | undefined, configured: ITextReranker | undefined): ITextReranker | undefined {
  if (rerank === false) return undefined;
  if (rerank === 'mmr') return new MmrReranker();
  if (rerank === true && !configured) {
    throw new InvalidInputError(
      'invalid_argument',
      'rerank: no reranker is configured (use rerank: "mmr", or configure one with withReranker)',
    );
  }
  return configured;
}

/** What reranking may use besides the query and the matches. */
export interface RerankStepContext {
  /** The query's embedding, when retrieval computed one. */
  queryVector?: Float32Array | undefined;
  /**
   * How the matches were retrieved. In `vector` mode a candidate's relevance is its cosine; in
   * `hybrid` and `lexical` modes the order is the fused or lexical one, so candidates get a rank
   * score instead (1 for the first, falling evenly), and a reranker keeps that order's judgement.
   */
  mode?: 'vector' | 'lexical' | 'hybrid' | undefined;
  /** Embeds the query or candidates a vector-hungry reranker lacks (purpose `query`). */
  embeddingGenerator?: ITextEmbeddingGenerator | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Reorders the first {@link RERANK_CANDIDATES} matches in the reranker's order (the others
 * follow unchanged). The relevance of each match stays its retrieval relevance, so
 * `minRelevance` keeps one meaning. For a reranker that needs vectors, missing candidate or
 * query vectors are embedded in one call.
 */
export async function rerankMatches(
  reranker: ITextReranker,
  query: string,
  matches: readonly Match[],
  context: RerankStepContext,
): Promise<Match[]> {
  const head = matches.slice(0, RERANK_CANDIDATES);
  const tail = matches.slice(RERANK_CANDIDATES);
  if (head.length < 2) return [...matches];
  const byRank = context.mode !== undefined && context.mode !== 'vector';
  const candidates: RerankCandidate[] = head.map(([record, relevance], i) => ({
    text: String(record.payload[PayloadFields.text] ?? ''),
    relevance: byRank ? 1 - i / head.length : relevance,
    ...(record.vector && record.vector.length > 0 ? { vector: record.vector } : {}),
  }));
  let queryVector = context.queryVector;
  const generator = context.embeddingGenerator;
  if (reranker.needsVectors && generator) {
    const missing = candidates.flatMap((c, i) => (c.vector ? [] : [i]));
    if (missing.length > 0 || !queryVector) {
      const texts = [...(queryVector ? [] : [query]), ...missing.map((i) => candidates[i]!.text)];
      const vectors = await generator.generateEmbeddings(texts, context.signal, { purpose: 'query' });
      const offset = queryVector ? 0 : 1;
      if (!queryVector) queryVector = vectors[0];
      missing.forEach((i, k) => (candidates[i]!.vector = vectors[k + offset]!));
    }
  }
  const order = await reranker.rerank(query, candidates, {
    ...(queryVector ? { queryVector } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
  });
  const out: Match[] = [];
  const used = new Set<number>();
  for (const { index } of order) {
    if (!Number.isInteger(index) || index < 0 || index >= head.length || used.has(index)) continue;
    used.add(index);
    out.push(head[index]!);
  }
  // Candidates the reranker left out keep their retrieval order after those it ranked.
  head.forEach((m, i) => used.has(i) || out.push(m));
  return [...out, ...tail];
}
