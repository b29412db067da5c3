import { describe, expect, it } from 'vitest';
import { candidateBudget, DEFAULT_LEXICAL_CANDIDATES, planCandidates, type QueryTerm } from '../src/vector-store/lexical-plan.js';

const term = (literal: string, df: number): QueryTerm => ({ literal: `'${literal}'`, df });
const large = (...terms: QueryTerm[]) => ({ terms, rows: 100_000, exact: false });

describe('which rows a lexical search ranks on a large table', () => {
  it('ranks every matching row on a table whose counts are exact, or when the words fit the budget together', () => {
    expect(planCandidates({ ...large(term('capit', 40_000), term('citi', 30_000)), exact: true }, 10)).toBeUndefined();
    expect(planCandidates(large(term('moon', 400), term('land', 600)), 10)).toBeUndefined();
    expect(planCandidates(large(term('moon', 400), term('land', 601)), 10)).toBeDefined();
    expect(planCandidates(large(), 10)).toBeUndefined();
    expect(planCandidates(large(term('gone', 0)), 10)).toBeUndefined();
  });

  it('picks candidates: sets of words by their IDF together (every word first, four sets at most), then the rarest words that fit the budget, then any word', () => {
    const plan = planCandidates(large(term('capit', 40_000), term('moon', 120), term('citi', 30_000), term('land', 250)), 10);
    expect(plan?.budget).toBe(DEFAULT_LEXICAL_CANDIDATES);
    expect(plan?.tiers).toEqual([
      "'moon' & 'land' & 'citi' & 'capit'",
      "'moon' & 'land' & 'citi'",
      "'moon' & 'land' & 'capit'",
      "'moon' & 'land'",
      "'moon' | 'land'",
      "'moon' | 'land' | 'citi' | 'capit'",
    ]);
  });

  it('runs the any-word tier only when needed once the words are in more than ten times the budget rows together', () => {
    expect(planCandidates(large(term('capit', 5_000), term('citi', 5_000)), 10)?.lastTierIfShort).toBe(false);
    expect(planCandidates(large(term('capit', 5_000), term('citi', 5_001)), 10)?.lastTierIfShort).toBe(true);
    expect(planCandidates(large(term('capit', 50_000)), 10)?.lastTierIfShort).toBe(false); // its only tier
  });

  it('a question of common words only has no rare tier; one word has no AND tier', () => {
    expect(planCandidates(large(term('capit', 40_000), term('citi', 30_000)), 10)?.tiers).toEqual(["'citi' & 'capit'", "'citi' | 'capit'"]);
    expect(planCandidates(large(term('capit', 40_000)), 10)?.tiers).toEqual(["'capit'"]);
  });

  it('ranks more candidates for a larger limit, and as many as lexicalCandidates asks', () => {
    expect(candidateBudget(10)).toBe(DEFAULT_LEXICAL_CANDIDATES);
    expect(candidateBudget(200)).toBe(1_600);
    expect(candidateBudget(10, 50)).toBe(80);
    expect(planCandidates(large(term('capit', 40_000)), 10, Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('a long question keeps four AND tiers, drawn from its twelve rarest words, every word of those first', () => {
    const many = Array.from({ length: 15 }, (_, i) => term(`w${String(i).padStart(2, '0')}`, 5_000 + i));
    const tiers = planCandidates(large(...many), 10)!.tiers;
    expect(tiers).toHaveLength(5); // no rare tier: each word is in more rows than the budget
    expect(tiers[0]!.split(' & ')).toHaveLength(12);
    expect(tiers.slice(0, 4).every((t) => !t.includes('w12') && !t.includes('w14'))).toBe(true);
    expect(tiers.at(-1)!.split(' | ')).toHaveLength(15);
  });
});
