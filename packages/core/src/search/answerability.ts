import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { AnswerEvidence } from './answer-evidence.js';

/**
 * When ask answers "not found" without a language model: a logistic model of whether the
 * retrieved passages answer the question, `intercept + lexical · evidence.lexical + cosine ·
 * evidence.cosine`; below 0 memory cannot answer. Set `cosine` to 0 for a model of the words alone.
 */
export interface AnswerabilityModel {
  intercept: number;
  /** Weight of the word evidence (see `AnswerEvidence.lexical`). */
  lexical: number;
  /** Weight of the best passage's cosine; its scale belongs to one embedding model. */
  cosine: number;
}

/**
 * Models fitted per embedding model by `pnpm --filter @km/bench fit:answerability` (a logistic
 * regression on the paraphrase set's 80 answerable questions and 50 off-topic questions, its
 * threshold the highest that answers 79 of the 80), validated on the gold set, the SQuAD
 * sample and LoCoMo: see docs/adr/0003-answers-and-fusion.md for the table.
 */
export const ANSWERABILITY_MODELS: Readonly<Record<string, AnswerabilityModel>> = {
  'local/universal-sentence-encoder-lite': { intercept: -1.513, lexical: 3.476, cosine: 2.73 },
};

/**
 * The model of the words alone, for an embedding model whose cosines were never calibrated, a
 * lexical search (its relevance is no cosine) or core's hashing generator (its cosine is a word
 * match already): fitted the same way, without the cosine.
 */
export const LEXICAL_ANSWERABILITY: AnswerabilityModel = { intercept: -0.359, lexical: 3.959, cosine: 0 };

/** The fitted model of an embedding generator, else {@link LEXICAL_ANSWERABILITY}. */
export function answerabilityModelFor(generator: ITextEmbeddingGenerator | undefined): AnswerabilityModel {
  const name = generator?.modelName ?? '';
  return ANSWERABILITY_MODELS[name] ?? LEXICAL_ANSWERABILITY;
}

/** The model's score for some evidence: 0 or more means the passages answer the question. */
export function answerabilityScore(model: AnswerabilityModel, evidence: AnswerEvidence): number {
  return model.intercept + model.lexical * evidence.lexical + model.cosine * evidence.cosine;
}
