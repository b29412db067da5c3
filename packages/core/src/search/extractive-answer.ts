import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { cosineSimilarity } from '../memory-storage/vector-math.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { contentTerms, questionTerms } from './answer-terms.js';
import type { MergedPassage } from './passage-merge.js';
import { holdsFocus, questionFocus } from './question-focus.js';
import { splitSentences } from './sentence-splitter.js';
import { TermWeights } from './term-coverage.js';

/** Preamble of every extractive answer, so readers know no model wrote it. */
export const EXTRACTIVE_PREAMBLE = 'No language model is configured, so this answer quotes the most relevant passages in memory:';

/** A sentence chosen for the answer and the record it came from. */
export interface QuotedSentence {
  text: string;
  score: number;
  record: MemoryRecord;
  relevance: number;
  /** Other records holding the same sentence (e.g. the same text in other documents), quoted once. */
  duplicates: Array<[MemoryRecord, number]>;
}

/** Passages whose sentences are considered. */
const PASSAGES = 20;
/** Sentences embedded (in one call) to break ties among the best by the cheap score. */
export const EMBEDDED_SENTENCES = 8;
/**
 * Weights of the cheap score: question words found (half in the sentence, half in its passage,
 * since an answer sentence seldom repeats every word of the question), passage relevance,
 * focus, lead position.
 */
const W_LEXICAL = 0.5;
const W_RELEVANCE = 0.3;
const W_FOCUS = 0.25;
const W_LEAD = 0.05;
/** Weight of the sentence's cosine with the question, for the embedded few. */
const W_COSINE = 0.15;

/** What sentence selection may use besides the passages. */
export interface SentenceSelectionOptions {
  /** Most sentences returned. */
  count: number;
  /** Embeds the best few sentences (one call, purpose `query`); none when absent. */
  generator?: ITextEmbeddingGenerator | undefined;
  /** The question's embedding, when retrieval computed it (saves embedding it again). */
  queryVector?: Float32Array | undefined;
  signal?: AbortSignal | undefined;
}

interface Candidate extends Omit<QuotedSentence, 'score'> {
  cheap: number;
}

/**
 * Picks the sentences of the passages that best answer the question, best first, without
 * embedding every sentence: a cheap score (IDF-weighted share of the question's content words
 * in the sentence and in its passage, the passage's relevance, a bonus when the sentence holds what the question
 * asks for — a date after "when", a number after "how many", a name after "who", a place after
 * "where" — and a small one for lead sentences), then the best {@link EMBEDDED_SENTENCES} whose
 * cosine could still lift them to the top are embedded in one call (none when the best leads
 * by more than the cosine's weight) and their cosine with the question breaks ties.
 */
export async function selectSentences(
  question: string,
  passages: readonly MergedPassage[],
  options: SentenceSelectionOptions,
): Promise<QuotedSentence[]> {
  const considered = passages.slice(0, PASSAGES);
  const weights = new TermWeights(considered.map((p) => p.terms));
  const asked = questionTerms(question);
  const focus = questionFocus(question);
  const candidates: Candidate[] = [];
  const seen = new Map<string, Candidate>();
  for (const passage of considered) {
    const inPassage = weights.coverage(asked, new Set(passage.terms));
    splitSentences(passage.text).forEach((sentence, position) => {
      if (sentence.length < 12) return;
      const key = sentence.toLowerCase();
      const first = seen.get(key);
      if (first) {
        for (const [record, relevance] of [[passage.record, passage.relevance] as [MemoryRecord, number], ...passage.duplicates]) {
          if (first.record !== record && !first.duplicates.some(([r]) => r === record)) first.duplicates.push([record, relevance]);
        }
        return;
      }
      const lexical = 0.5 * weights.coverage(asked, new Set(contentTerms(sentence))) + 0.5 * inPassage;
      const cheap =
        W_LEXICAL * lexical +
        W_RELEVANCE * passage.relevance +
        (focus && holdsFocus(sentence, focus) ? W_FOCUS : 0) +
        W_LEAD / (1 + position);
      const candidate: Candidate = {
        text: sentence,
        record: passage.record,
        relevance: passage.relevance,
        duplicates: [...passage.duplicates],
        cheap,
      };
      seen.set(key, candidate);
      candidates.push(candidate);
    });
  }
  if (candidates.length === 0) return [];
  candidates.sort((a, b) => b.cheap - a.cheap);
  // Only sentences the cosine could lift to the top are worth embedding (cosine <= 1).
  const reach = candidates[0]!.cheap - W_COSINE;
  const best = candidates.slice(0, EMBEDDED_SENTENCES);
  const contenders = best.filter((c) => c.cheap >= reach);
  const contenderCosines = await sentenceCosines(question, contenders, options);
  const cosines = best.map((c) => contenderCosines[contenders.indexOf(c)] ?? 0);
  const ranked = best
    .map(({ cheap, ...c }, i) => ({ ...c, score: cheap + W_COSINE * (cosines[i] ?? 0) }))
    .sort((a, b) => b.score - a.score);
  const top = ranked[0]!.score;
  // Weak runners-up are dropped.
  return ranked.filter((c) => c.score >= top * 0.6).slice(0, options.count);
}

/** The cosine of each sentence with the question, from one embedding call; zeros without a generator. */
async function sentenceCosines(question: string, sentences: readonly Candidate[], options: SentenceSelectionOptions): Promise<number[]> {
  const generator = options.generator;
  if (!generator || sentences.length < 2) return [];
  const texts = sentences.map((s) => s.text);
  const vectors = await generator.generateEmbeddings(options.queryVector ? texts : [question, ...texts], options.signal, {
    purpose: 'query',
  });
  const q = options.queryVector ?? vectors[0]!;
  const offset = options.queryVector ? 0 : 1;
  return sentences.map((_, i) => cosineSimilarity(q, vectors[i + offset]!));
}
