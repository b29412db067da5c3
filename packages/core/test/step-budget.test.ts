import { describe, expect, it } from 'vitest';
import { firstFailureMs, formatDuration, stepGivenUp } from '../src/pipeline/step-budget.js';

const budget = { retryBudgetMs: 60_000, maxCrashes: 3 };
const at = (iso: string) => Date.parse(iso);

describe('when the distributed orchestrator stops retrying a step', () => {
  it('goes on while the first failure is younger than the budget, and not once it is as old', () => {
    const attempts = { step: 'extract', count: 4, answered: 4, first_failure: '2026-11-29T10:00:00.000Z', last_error: 'db down' };
    expect(stepGivenUp('extract', attempts, budget, at('2026-11-29T10:00:59.999Z'))).toBeUndefined();
    expect(stepGivenUp('extract', attempts, budget, at('2026-11-29T10:01:00.000Z'))).toBe(
      'step "extract" kept failing for 1 min (retry budget 1 min, 4 attempts): db down',
    );
    expect(stepGivenUp('extract', undefined, budget, Date.now())).toBeUndefined();
  });

  it('counts attempts that never answered as crashes; answers this process could not record are not crashes', () => {
    const crashed = { step: 'save_records', count: 3, answered: 0 };
    expect(stepGivenUp('save_records', crashed, budget, Date.now())).toBe(
      'step "save_records" was started 3 times and the worker running it stopped 3 times before finishing',
    );
    expect(stepGivenUp('save_records', crashed, budget, Date.now(), { firstFailureMs: Date.now(), unrecordedAnswers: 1 })).toBeUndefined();
  });

  it('counts the time the state could not be read from what this process remembers, whichever began first', () => {
    const now = at('2026-11-29T10:05:00.000Z');
    const remembered = { firstFailureMs: at('2026-11-29T10:00:00.000Z'), unrecordedAnswers: 0 };
    expect(firstFailureMs({ step: 's', count: 1, first_failure: '2026-11-29T10:04:00.000Z' }, remembered)).toBe(remembered.firstFailureMs);
    expect(stepGivenUp('s', undefined, budget, now, remembered)).toBe(
      'step "s" kept failing for 5 min (retry budget 1 min, 0 attempts): the pipeline state could not be read or written',
    );
  });

  it('formats durations for people', () => {
    expect([350, 42_000, 185_000, 3_600_000, 3_720_000].map(formatDuration)).toEqual(['350 ms', '42 s', '3 min 5 s', '1 h', '1 h 2 min']);
  });
});
