import { isKmError } from '@km/core';
import { compareRecordIds, KmRecordLayout } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import {
  azureIndexName,
  checkIndexPrefix,
  documentKeyOf,
  lexicalScore,
  MAX_RECORD_ID_UNITS,
  recordIdOfKey,
  relevanceFromScore,
  scoreFromRelevance,
  simpleQueryText,
  toODataVectorFilter,
  translateAzureSearchError,
} from '../src/index.js';

/** A small seeded generator (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random id of well-formed UTF-16: ASCII, Latin, CJK, emoji (surrogate pairs), separators. */
function randomId(next: () => number): string {
  const pools = [
    () => String.fromCharCode(0x20 + Math.floor(next() * 95)),
    () => String.fromCharCode(0xa0 + Math.floor(next() * 0x500)),
    () => String.fromCharCode(0x4e00 + Math.floor(next() * 0x5000)),
    () => String.fromCodePoint(0x1f300 + Math.floor(next() * 0x300)),
    () => String.fromCharCode(0xe000 + Math.floor(next() * 0x1fff)),
    () => ['d=', '//p=', '_', '=', '-', "'", '/'][Math.floor(next() * 7)]!,
  ];
  let id = '';
  const length = 1 + Math.floor(next() * 40);
  while (id.length < length) id += pools[Math.floor(next() * pools.length)]!();
  return id;
}

describe('document keys', () => {
  it('round-trip 2000 random unicode ids exactly, using only letters and digits (never a leading _)', () => {
    const next = random(17);
    for (let i = 0; i < 2000; i++) {
      const id = randomId(next);
      const key = documentKeyOf(id)!;
      expect(key).toMatch(/^[0-9a-v]+$/);
      expect(recordIdOfKey(key)).toBe(id);
    }
  });

  it('sort as the ids do under compareRecordIds (so the service lists in km id order)', () => {
    const next = random(42);
    for (let i = 0; i < 2000; i++) {
      const [a, b] = [randomId(next), next() < 0.3 ? '' : randomId(next)];
      const other = b === '' ? `${a}${randomId(next)}` : b; // prefixes too
      const [ka, kb] = [documentKeyOf(a)!, documentKeyOf(other)!];
      expect(Math.sign(ka < kb ? -1 : ka > kb ? 1 : 0), `${JSON.stringify(a)} vs ${JSON.stringify(other)}`).toBe(
        Math.sign(compareRecordIds(a, other)),
      );
    }
    // Code unit order, not code point order: U+FFFF sorts after an emoji's high surrogate.
    expect(documentKeyOf('\uffff')! > documentKeyOf('🚀')!).toBe(true);
    expect(documentKeyOf('a')! < documentKeyOf('a\u0000')!).toBe(true);
  });

  it('fit the 1024-character key limit up to 320 code units; longer ids have no key', () => {
    expect(MAX_RECORD_ID_UNITS).toBe(320);
    expect(documentKeyOf('a')).toBe('01gg'); // 0x0061: 00000 00001 10000 1(0000)
    expect(documentKeyOf('x'.repeat(320))).toHaveLength(1024);
    expect(documentKeyOf('x'.repeat(321))).toBeUndefined();
    expect(documentKeyOf('')).toBeUndefined();
    const pipelineId = `d=${'a'.repeat(255)}//p=${'0'.repeat(32)}`; // the longest id the pipeline writes
    expect(recordIdOfKey(documentKeyOf(pipelineId)!)).toBe(pipelineId);
  });

  it('refuses keys it did not make: other characters, extra characters, non-zero padding', () => {
    const key = documentKeyOf('ab')!;
    for (const bad of ['', 'A', `${key}0`, `${key.slice(0, -1)}v`, 'abc_', '0'.repeat(2000)])
      expect(recordIdOfKey(bad), bad).toBeUndefined();
  });
});

describe('relevance', () => {
  it("converts the service's cosine score 1 / (1 + (1 - cos)) back to the cosine", () => {
    expect(relevanceFromScore(1)).toBe(1);
    expect(relevanceFromScore(0.5)).toBe(0);
    expect(relevanceFromScore(1 / 3)).toBeCloseTo(-1, 12);
    expect(relevanceFromScore(1 / (1 + (1 - 0.7)))).toBeCloseTo(0.7, 12);
    for (const cos of [-1, -0.3, 0, 0.42, 0.999, 1]) expect(relevanceFromScore(scoreFromRelevance(cos))).toBeCloseTo(cos, 12);
    expect(relevanceFromScore(0)).toBe(-1);
  });

  it('maps BM25 scores to [0, 1) monotonically: s / (s + 1)', () => {
    const scores = [0, 0.01, 0.5, 1, 3, 10, 1e6].map(lexicalScore);
    expect(scores[0]).toBe(0);
    expect(scores[3]).toBe(0.5);
    for (let i = 1; i < scores.length; i++) expect(scores[i]!).toBeGreaterThan(scores[i - 1]!);
    for (const s of scores) expect(s).toBeLessThan(1);
  });
});

describe('lexical query text', () => {
  it('escapes every character of the simple syntax, so the text is words, never operators', () => {
    expect(simpleQueryText('tax rules')).toBe('tax rules');
    expect(simpleQueryText('-tax +rules "x" a|b (c)* d~ e?')).toBe('\\-tax \\+rules \\"x\\" a\\|b \\(c\\)\\* d\\~ e\\?');
    expect(simpleQueryText('C:\\path/x')).toBe('C\\:\\\\path\\/x');
    expect(simpleQueryText("o'hara's")).toBe("o\\'hara\\'s");
  });

  it('keeps at most 1000 words (the service bounds the clauses of a search), counting each CJK character as one', () => {
    const words = Array.from({ length: 1500 }, (_, i) => `w${i}`);
    const text = simpleQueryText(words.join(' -'))!;
    expect(text).toBe(words.slice(0, 1000).join(' \\-'));
    expect(simpleQueryText(`a-b ${'日'.repeat(1200)}`)).toBe(`a\\-b ${'日'.repeat(998)}`);
    expect(simpleQueryText('x '.repeat(999))).toBe('x '.repeat(999)); // short enough: unchanged
  });

  it('keeps at most 32,000 characters before escaping, so the escaped text stays far below the 100,000 the service takes', () => {
    const long = `${'a'.repeat(40_000)} b`;
    expect(simpleQueryText(long)).toBe('a'.repeat(32_000));
    expect(simpleQueryText(`${'('.repeat(40_000)}x`)).toBeUndefined(); // no word within the bound
    expect(simpleQueryText(`x${'('.repeat(40_000)}`)).toBe(`x${'\\('.repeat(31_999)}`);
    expect(simpleQueryText(`${'a'.repeat(31_999)}🚀`)).toBe('a'.repeat(31_999)); // never half a surrogate pair
  });

  it('a text without letters or digits searches nothing (an empty search would match everything)', () => {
    expect(simpleQueryText('*')).toBeUndefined();
    expect(simpleQueryText(' -- ')).toBeUndefined();
    expect(simpleQueryText('日本')).toBe('日本');
  });
});

describe('index names', () => {
  it('prefix plus the normalised km name', () => {
    expect(azureIndexName('km-', 'notes-v1')).toBe('km-notes-v1');
    expect(azureIndexName('', 'ab')).toBe('ab');
  });

  it('refuses names the service refuses: consecutive dashes, a leading or trailing dash, 1 or more than 128 characters', () => {
    for (const [prefix, index] of [
      ['km-', 'a--b'],
      ['km-', '-a'],
      ['km-', 'a-'],
      ['', '-ab'],
      ['', 'a'],
      ['km-', 'x'.repeat(126)],
    ] as const) {
      expect(() => azureIndexName(prefix, index), index).toThrow(expect.objectContaining({ code: 'invalid_index_name' }));
    }
    expect(azureIndexName('km-', 'x'.repeat(125))).toHaveLength(128);
  });

  it('checks the prefix', () => {
    for (const ok of ['', 'km-', 'team_a-km-', 'x']) expect(checkIndexPrefix(ok)).toBe(ok);
    for (const bad of ['KM-', '-km', '_km', 'a--', 'a__b', 'a.b', 'a b', 'x'.repeat(128)]) {
      expect(() => checkIndexPrefix(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});

describe('translateAzureSearchError', () => {
  const rest = (statusCode: number | undefined, message: string, headers: Record<string, string> = {}, code?: string) => ({
    name: 'RestError',
    statusCode,
    code,
    message,
    response: { headers: { get: (name: string) => headers[name.toLowerCase()] } },
  });

  it('maps the service answers to typed km errors', () => {
    expect(isKmError(translateAzureSearchError(rest(404, "The index 'km-x' was not found."), 'x'), 'index_not_found')).toBe(true);
    expect(isKmError(translateAzureSearchError(rest(401, 'Unauthorized'), 'x'), 'unauthorized')).toBe(true);
    expect(isKmError(translateAzureSearchError(rest(403, 'Forbidden'), 'x'), 'unauthorized')).toBe(true);
    const busy = translateAzureSearchError(rest(429, 'Too many requests', { 'retry-after': '7' }), 'x');
    expect(isKmError(busy, 'rate_limited') && busy.transient && busy.retryAfterMs).toBe(7000);
    const unavailable = translateAzureSearchError(rest(503, 'Service unavailable', { 'retry-after-ms': '250' }), 'x');
    expect(isKmError(unavailable, 'transient') && unavailable.transient && unavailable.retryAfterMs).toBe(250);
    const down = translateAzureSearchError(rest(undefined, 'connect ECONNREFUSED', {}, 'ECONNREFUSED'), 'x');
    expect(isKmError(down, 'transient') && down.transient).toBe(true);
    const bad = translateAzureSearchError(rest(400, 'Invalid expression'), 'x');
    expect(isKmError(bad, 'upstream_error') && !bad.transient).toBe(true);
  });

  it('leaves km errors and aborts as they are', () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    expect(translateAzureSearchError(abort, 'x')).toBe(abort);
  });
});

describe('tag filters built from unicode and hostile values stay valid literals', () => {
  it('every literal of a filter reads back, quotes undoubled, to the values it came from', () => {
    const next = random(7);
    const tags = new KmRecordLayout().definition(2).data.find((d) => d.storageName === 'tags')!;
    for (let i = 0; i < 300; i++) {
      const values = [randomId(next), `${randomId(next)}') or true or ('`];
      const filter = toODataVectorFilter({
        op: 'and',
        nodes: values.map((v) => ({ op: 'contains' as const, property: tags as never, value: `k:${v}` })),
      }) as string;
      const literals = [...filter.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replaceAll("''", "'"));
      expect(literals).toEqual(values.map((v) => `k:${v}`));
      expect(filter.replace(/'(?:[^']|'')*'/g, "''")).toBe("tags/any(t: t eq '') and tags/any(t: t eq '')");
    }
  });
});
