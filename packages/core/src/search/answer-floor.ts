import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';

/**
 * Calibrated relevance floors of ask, by embedding model: below its floor a question's best
 * passage is taken as unrelated, unless the passage holds most of the question's content words
 * (see `SearchClientOptions.answerFloor`). Provisional numbers, measured by a scratch bench
 * (2026-11-25): ~340 passages (10 short factual passages plus km's Markdown docs cut at 120
 * tokens), 15 answerable and 15 unanswerable questions; the floor sits between the two
 * distributions of the best passage's cosine. See the README's "Answers without a model".
 */
export const ANSWER_FLOORS: Readonly<Record<string, number>> = {
  // Universal Sentence Encoder lite (@km/ai-local's default): best cosine of answerable questions
  // 0.33–0.68 (median 0.58), of unanswerable ones 0.14–0.50: the cosine alone cannot separate them.
  // With the word check: floor 0.5 answered 14/15 and refused 15/15; 0.45 answered 14/15 and
  // refused 12/15 (three unanswerable questions at 0.45–0.50).
  'local/universal-sentence-encoder-lite': 0.5,
};

/**
 * Floor of core's hashing generator (any configuration, `km/hashing-…`): it matches words and
 * word pieces, so an unrelated passage still shares n-grams; best cosine of answerable questions
 * 0.22–0.67, of unanswerable ones 0.14–0.39. At 0.4 it answered 13/15 (two retrieval misses) and
 * refused 15/15.
 */
const HASHING_FLOOR = 0.4;

/** The calibrated floor of the generator's model; 0 (no floor) for a model not in the table. */
export function defaultAnswerFloor(generator: ITextEmbeddingGenerator | undefined): number {
  const name = generator?.modelName ?? '';
  if (name in ANSWER_FLOORS) return ANSWER_FLOORS[name]!;
  if (name.startsWith('km/hashing-')) return HASHING_FLOOR;
  return 0;
}

/** Share (IDF-weighted) of the question's content words below which they are "mostly absent". */
export const ABSENT_WORDS_COVERAGE = 0.5;

/** Passages (best first) searched for the question's words before answering "not found". */
export const WORD_CHECKED_PASSAGES = 5;
