import { describe, expect, it } from 'vitest';
import { candidateBudget, DEFAULT_LEXICAL_CANDIDATES, planCandidates } from '../src/vector-store/lexical-plan.js';

const term = (literal: string, df: number) => ({ literal: `'${literal}'`, df });

describe('which rows a lexical search ranks on a large table', () => {
  it('ranks every matching row on a table whose counts are exact, or when the words fit the budget together', () => {
    const common = [term('capit', 40_000), term('citi', 30_000)];
    expect(planCandidates(common, 10, true)).toBeUndefined();
    expect(planCandidates([term('moon', 150), term('land', 200)], 10, false)).toBeUndefined();
    expect(planCandidates([term('moon', 150), term('land', 251)], 10, false)).toBeDefined();
    expect(planCandidates([], 10, false)).toBeUndefined();
    expect(planCandidates([term('gone', 0)], 10, false)).toBeUndefined();
  });

  it('picks candidates: every word, then the rarest words that fit the budget, then all words but one, then any word', () => {
    const plan = planCandidates([term('capit', 40_000), term('moon', 120), term('citi', 30_000), term('land', 250)], 10, false);
    expect(plan).toEqual({
      budget: DEFAULT_LEXICAL_CANDIDATES,
      tiers: [
        "'moon' & 'land' & 'citi' & 'capit'",
        "'moon' | 'land'",
        "( 'land' & 'citi' & 'capit' ) | ( 'moon' & 'citi' & 'capit' ) | ( 'moon' & 'land' & 'capit' ) | ( 'moon' & 'land' & 'citi' )",
        "'moon' | 'land' | 'citi' | 'capit'",
      ],
    });
  });

  it('a question of common words only has no rare tier; one of two words no all-but-one tier', () => {
    expect(planCandidates([term('capit', 40_000), term('citi', 30_000)], 10, false)?.tiers).toEqual(["'citi' & 'capit'", "'citi' | 'capit'"]);
    expect(planCandidates([term('capit', 40_000)], 10, false)?.tiers).toEqual(["'capit'"]);
  });

  it('ranks more candidates for a larger limit, and as many as lexicalCandidates asks', () => {
    expect(candidateBudget(10)).toBe(DEFAULT_LEXICAL_CANDIDATES);
    expect(candidateBudget(100)).toBe(800);
    expect(candidateBudget(10, 2_000)).toBe(2_000);
    expect(planCandidates([term('capit', 40_000)], 10, false, Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('leaves out the all-but-one tier past 12 words (it would hold one AND per word)', () => {
    const many = Array.from({ length: 13 }, (_, i) => term(`w${i}`, 5_000 + i));
    const tiers = planCandidates(many, 10, false)!.tiers;
    expect(tiers).toHaveLength(2);
    expect(tiers[0]).toContain(' & ');
    expect(tiers[1]).not.toContain('&');
  });
});
