import { describe, expect, it } from 'vitest';
import {
  ANSWERABILITY_MODELS,
  answerabilityScore,
  answerEvidence,
  contentTerms,
  EVIDENCE_PASSAGES,
  LEXICAL_ANSWERABILITY,
  questionTerms,
} from '../src/index.js';

const passage = (text: string, relevance = 0.5) => ({ terms: contentTerms(text), relevance });

describe('answerEvidence', () => {
  const pool = [
    passage('The Harrow Point lighthouse was lit in 1871 and is 38 metres tall.', 0.6),
    passage('The harbour of Port Calder was rebuilt in 1904 after a storm.', 0.4),
    passage('Bread is baked at 220 degrees for forty minutes.', 0.2),
  ];

  it('is high when the best passage holds the rare words of the question, low when it holds none', () => {
    const known = answerEvidence(questionTerms('How tall is the Harrow Point lighthouse?'), pool);
    const unknown = answerEvidence(questionTerms('Who won the 1998 Tour de France?'), pool);
    expect(known.lexical).toBeGreaterThan(0.4);
    expect(unknown.lexical).toBe(0);
    expect(known.cosine).toBe(0.6);
  });

  it('weighs a word no passage holds the most: it lowers the evidence, without erasing what the rest found', () => {
    const full = answerEvidence(questionTerms('When was the Port Calder harbour rebuilt?'), pool).lexical;
    const absent = answerEvidence(questionTerms('When was the Port Calder harbour rebuilt by the navy?'), pool).lexical;
    expect(absent).toBeLessThan(full);
    expect(absent).toBeGreaterThan(full / 2);
  });

  it('reads the scores of the first passages only, and the statistics of all', () => {
    const late = [
      ...Array.from({ length: EVIDENCE_PASSAGES }, () => passage('Nothing to see here at all.', 0.9)),
      passage('The lighthouse is 38 metres tall.', 0.1),
    ];
    expect(answerEvidence(questionTerms('How tall is the lighthouse?'), late)).toEqual({ lexical: 0, cosine: 0.9 });
    expect(answerEvidence([], pool)).toEqual({ lexical: 0, cosine: 0.6 });
    expect(answerEvidence(questionTerms('lighthouse'), [])).toEqual({ lexical: 0, cosine: 0 });
  });
});

describe('answerability models', () => {
  it('score = intercept + weights · evidence; the words-alone model ignores the cosine', () => {
    const model = { intercept: -1, lexical: 2, cosine: 3 };
    expect(answerabilityScore(model, { lexical: 0.25, cosine: 0.5 })).toBeCloseTo(1, 12);
    expect(answerabilityScore(LEXICAL_ANSWERABILITY, { lexical: 0, cosine: 1 })).toBe(LEXICAL_ANSWERABILITY.intercept);
  });

  it('the local model needs words or meaning: neither alone at its floor passes, both do', () => {
    const local = ANSWERABILITY_MODELS['local/universal-sentence-encoder-lite']!;
    expect(answerabilityScore(local, { lexical: 0, cosine: 0.3 })).toBeLessThan(0);
    expect(answerabilityScore(local, { lexical: 0.1, cosine: 0.2 })).toBeLessThan(0);
    expect(answerabilityScore(local, { lexical: 0.3, cosine: 0.45 })).toBeGreaterThan(0);
  });
});
