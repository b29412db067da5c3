import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';

/**
 * Relevance floors of ask, by embedding model: a question whose best passage's cosine is below
 * its model's floor is answered "not found" (see `SearchClientOptions.answerFloor`). The floor is
 * a guard against plainly unrelated memory; the word checks below do most of the work, because
 * the cosines of answerable and unanswerable questions overlap.
 *
 * Calibration (`pnpm --filter @km/bench bench:rag`, 2026-11-25; bench/README.md): with
 * Universal Sentence Encoder lite, the best passage's cosine of 65 answerable questions of the
 * gold set spans 0.375–0.68 (p10 0.447), of 800 SQuAD questions p10 0.41; of 25 unanswerable
 * ones p10 0.29, p50 0.43, p90 0.58. A floor at 0.35 refuses what is plainly unrelated (6 of the
 * 25 unanswerable questions, in hybrid search) and no answerable question of either set.
 */
export const ANSWER_FLOORS: Readonly<Record<string, number>> = {
  'local/universal-sentence-encoder-lite': 0.35,
};

/**
 * Floor of core's hashing generator (any configuration, `km/hashing-…`): it matches words and
 * word pieces; best cosine of answerable questions 0.22–0.67, of unanswerable ones 0.14–0.39
 * (15 + 15 questions, a scratch measurement): 0.2 keeps every answerable one.
 */
const HASHING_FLOOR = 0.2;

/** The calibrated floor of the generator's model; 0 (no floor) for a model not in the table. */
export function defaultAnswerFloor(generator: ITextEmbeddingGenerator | undefined): number {
  const name = generator?.modelName ?? '';
  if (name in ANSWER_FLOORS) return ANSWER_FLOORS[name]!;
  if (name.startsWith('km/hashing-')) return HASHING_FLOOR;
  return 0;
}

/**
 * Share (IDF-weighted) of the question's content words the best of the first passages must hold,
 * else "not found". On the gold set (hybrid search), after the floor, this and the check below
 * refuse 16 more of the 25 unanswerable questions.
 */
export const ABSENT_WORDS_COVERAGE = 0.5;

/**
 * When a word of the question appears in no retrieved passage ("population", "wifi" asked of a
 * town's or a library's page), the share the best passage must hold rises to this: the
 * question is about something memory never mentions. In all, 22 of the 25 unanswerable questions
 * are refused (25 of 25 asked of the SQuAD sample) and 3 of the 65 answerable ones. The thresholds
 * were chosen on this set: a starting point.
 */
export const PARTLY_ABSENT_COVERAGE = 0.6;

/** Passages (best first) searched for the question's words before answering "not found". */
export const WORD_CHECKED_PASSAGES = 5;
