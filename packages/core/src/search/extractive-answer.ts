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
/**
 * How far behind the best cheap score a sentence may be and still be embedded: the cosines of
 * one question's candidate sentences seldom differ by more than a third, so the cosine moves a
 * sentence by at most a third of its weight (embedding them all within its whole weight, 0.15,
 * cost twice the time for the same first quote on the gold and paraphrase sets).
 */
const COSINE_REACH = W_COSINE / 3;

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
 * in its passage and, in the sentence, of those that do not name what the passage is about, the
 * passage's relevance, a bonus when the sentence holds what the question asks for — a date
 * after "when", a number after "how many", a name after "who", a place after "where" — and a
 * small one for lead sentences), then the best {@link EMBEDDED_SENTENCES} whose cosine could
 * still lift them to the top are embedded in one call (none when the best leads by more than
 * {@link COSINE_REACH}) and their cosine with the question breaks ties.
 *
 * What names the passage (its context line, its title, its first sentence) tells which passage
 * answers, not which sentence: "Who discovered velloite?" is answered by "It was first described
 * by Edda Lindqvist", not by "Velloite is a rare mineral", so the words shared with it count for
 * the passage only. A title or heading line is never quoted, nor (while anything else is left)
 * a sentence made only of the question's own words.
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
  let candidates: Candidate[] = [];
  const restating: Candidate[] = [];
  const seen = new Map<string, Candidate>();
  const askedTerms = new Set(asked);
  for (const passage of considered) {
    const inPassage = weights.coverage(asked, new Set(passage.terms));
    const sentences = splitSentences(passage.text);
    const title = leadingTitle(passage.text);
    const headings = headingsOf(passage.text);
    // What the passage is about (its context, title and first sentence): the question's words
    // that name it say which passage, not which of its sentences answers.
    const subject = new Set(contentTerms(`${passage.context}\n${title ?? ''}\n${sentences.find((s) => s !== title) ?? ''}`));
    const predicate = asked.filter((t) => !subject.has(t));
    sentences.forEach((sentence, position) => {
      if (sentence.length < 12 || sentence === title || headings.has(sentence)) return;
      const terms = contentTerms(sentence);
      // A sentence of nothing but the question's own words cannot answer it (kept only for when nothing else is left).
      const restates = terms.every((t) => askedTerms.has(t));
      const key = sentence.toLowerCase();
      const first = seen.get(key);
      if (first) {
        for (const [record, relevance] of [[passage.record, passage.relevance] as [MemoryRecord, number], ...passage.duplicates]) {
          if (first.record !== record && !first.duplicates.some(([r]) => r === record)) first.duplicates.push([record, relevance]);
        }
        return;
      }
      const lexical = 0.5 * (predicate.length > 0 ? weights.coverage(predicate, new Set(terms)) : 0) + 0.5 * inPassage;
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
      (restates ? restating : candidates).push(candidate);
    });
  }
  if (candidates.length === 0) candidates = restating;
  if (candidates.length === 0) return [];
  candidates.sort((a, b) => b.cheap - a.cheap);
  // Only sentences the cosine could lift to the top are worth embedding.
  const reach = candidates[0]!.cheap - COSINE_REACH;
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

/** A markdown heading line and its text. */
const HEADING = /^#{1,6}\s+(.+?)\s*#*\s*$/;

/** The texts of a passage's markdown headings (as the sentence splitter gives them, without `#`): titles, not answers. */
function headingsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const heading = HEADING.exec(line)?.[1];
    if (heading) out.add(heading.replace(/\s+/g, ' '));
  }
  return out;
}

/**
 * The title a passage opens with, if any: a first line of at most 100 characters without
 * closing punctuation, followed by a blank line (`The Harrow Point lighthouse\n\n…`). It names
 * the passage; an answer does not quote it.
 */
export function leadingTitle(text: string): string | undefined {
  const match = /^([^\n]{1,100})\n[ \t]*\n/.exec(text);
  const line = match?.[1]?.trim();
  return line && !/[.,;:!?]$/.test(line) ? line : undefined;
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
