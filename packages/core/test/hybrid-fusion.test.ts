import { describe, expect, it } from 'vitest';
import { isKmError } from '../src/index.js';
import { checkFusion, DEFAULT_FUSION, fuseRankings } from '../src/memory-storage/hybrid-fusion.js';

const rrf = { method: 'rrf', vectorWeight: 0.5, rrfK: 60 } as const;

describe('fuseRankings', () => {
  it('rrf: Σ weight / (k + rank), ranks 1-based, each side weighing 0.5 by default', () => {
    const fused = fuseRankings(
      [
        ['a', 0.9],
        ['b', 0.8],
      ],
      [
        ['b', 0.7],
        ['c', 0.2],
      ],
      rrf,
    );
    expect(fused.map((h) => h.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]!.score).toBeCloseTo(0.5 / 62 + 0.5 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(0.5 / 61, 12);
    expect(fused[2]!.score).toBeCloseTo(0.5 / 62, 12);
  });

  it('rrf: vectorWeight shifts the say of each side, and rrfK is the rank constant', () => {
    const fused = fuseRankings([['v', 0.9]], [['l', 0.9]], { method: 'rrf', vectorWeight: 0.8, rrfK: 1 });
    expect(fused).toEqual([
      { id: 'v', score: 0.8 / 2 },
      { id: 'l', score: expect.closeTo(0.2 / 2, 12) },
    ]);
  });

  it('weighted: vectorWeight · cosine + (1 − vectorWeight) · lexical; a vector-only hit has no words, a words-only hit keeps its cosine', () => {
    const fused = fuseRankings(
      [
        ['both', 0.5],
        ['vectorOnly', 0.9],
      ],
      [
        ['both', 0.6],
        ['wordsOnly', 1],
      ],
      { method: 'weighted', vectorWeight: 0.25, rrfK: 60 },
      new Map([['wordsOnly', 0.2]]),
    );
    expect(fused.map((h) => [h.id, Number(h.score.toFixed(6))])).toEqual([
      ['wordsOnly', 0.8], // 0.25 · 0.2 + 0.75 · 1
      ['both', 0.575],
      ['vectorOnly', 0.225],
    ]);
  });

  it('weighted: a words-only hit is not beaten by a vector-list hit with the same cosine and fewer words', () => {
    // Both have cosine 0.6; "inList" made the vector side's top k, "outside" did not. The one
    // holding more of the words must win: being in the vector list is no merit of its own.
    const fused = fuseRankings(
      [['inList', 0.6]],
      [
        ['outside', 0.35],
        ['inList', 0.3],
      ],
      DEFAULT_FUSION,
      new Map([['outside', 0.6]]),
    );
    expect(fused.map((h) => h.id)).toEqual(['outside', 'inList']);
  });

  it('orders equal fused scores by id', () => {
    const fused = fuseRankings([['z', 0.5]], [['a', 0.5]], rrf);
    expect(fused.map((h) => h.id)).toEqual(['a', 'z']); // both 0.5 / 61
    expect(fuseRankings([], [], rrf)).toEqual([]);
  });
});

describe('checkFusion', () => {
  it('applies the defaults (weighted, 0.15, 60)', () => {
    expect(checkFusion(undefined)).toEqual({ method: 'weighted', vectorWeight: 0.15, rrfK: 60 });
    expect(checkFusion(undefined)).toEqual(DEFAULT_FUSION);
    expect(checkFusion({ method: 'rrf' })).toEqual({ method: 'rrf', vectorWeight: 0.15, rrfK: 60 });
    expect(checkFusion({ vectorWeight: 0, rrfK: 1 })).toEqual({ method: 'weighted', vectorWeight: 0, rrfK: 1 });
  });

  it.each([
    [{ method: 'max' }],
    [{ vectorWeight: 1.5 }],
    [{ vectorWeight: -0.1 }],
    [{ vectorWeight: Number.NaN }],
    [{ rrfK: 0 }],
    [{ rrfK: -5 }],
    [{ rrfK: Number.POSITIVE_INFINITY }],
    ['rrf'],
  ])('refuses %j with invalid_argument', (fusion) => {
    expect(() => checkFusion(fusion as never)).toThrow(expect.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument')));
  });
});
