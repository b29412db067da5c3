import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import {
  checkIndexPrefix,
  documentIdOf,
  elasticsearchIndexName,
  relevanceFromScore,
  scoreFromRelevance,
  translateElasticsearchError,
} from '../src/index.js';

describe('relevance', () => {
  it('converts the cosine score (1 + cos) / 2 back to the cosine', () => {
    expect(relevanceFromScore(1)).toBe(1);
    expect(relevanceFromScore(0.5)).toBe(0);
    expect(relevanceFromScore(0)).toBe(-1);
    expect(relevanceFromScore(0.85)).toBeCloseTo(0.7, 12);
    for (const cos of [-1, -0.3, 0, 0.42, 1]) expect(relevanceFromScore(scoreFromRelevance(cos))).toBeCloseTo(cos, 12);
  });
});

describe('index names', () => {
  it('prefix plus the normalised km name', () => {
    expect(elasticsearchIndexName('km-', 'notes-v1')).toBe('km-notes-v1');
    expect(elasticsearchIndexName('', 'notes')).toBe('notes');
  });

  it('refuses results Elasticsearch refuses: a leading dash, more than 255 bytes', () => {
    expect(() => elasticsearchIndexName('', '-notes')).toThrow(expect.objectContaining({ code: 'invalid_index_name' }));
    expect(() => elasticsearchIndexName('km-', 'x'.repeat(253))).toThrow(expect.objectContaining({ code: 'invalid_index_name' }));
    expect(elasticsearchIndexName('km-', 'x'.repeat(252))).toHaveLength(255);
  });

  it('checks the prefix: lower case, no forbidden characters, no leading - _ + .', () => {
    for (const ok of ['', 'km-', 'team_a.km-', 'x']) expect(checkIndexPrefix(ok)).toBe(ok);
    for (const bad of ['KM-', 'a b', 'a/b', 'a*', 'a?', 'a"b', 'a<b', 'a|b', 'a,b', 'a#b', 'a:b', '-km', '_km', '+km', '.km']) {
      expect(() => checkIndexPrefix(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});

describe('document ids', () => {
  it('keeps a km id that fits the 512-byte _id limit, hashes a longer one', () => {
    expect(documentIdOf('d=doc//p=1')).toBe('d=doc//p=1');
    const long = `d=${'é'.repeat(300)}//p=1`;
    expect(documentIdOf(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(documentIdOf(long)).toBe(documentIdOf(long));
    expect(documentIdOf(long)).not.toBe(documentIdOf(`${long}2`));
  });

  it('a km id that looks like a hashed one is hashed too, so two records never share an _id', () => {
    const long = 'x'.repeat(600);
    expect(documentIdOf(documentIdOf(long))).not.toBe(documentIdOf(long));
  });
});

describe('translateElasticsearchError', () => {
  const response = (statusCode: number, type: string, reason: string) => ({
    name: 'ResponseError',
    meta: { statusCode, body: { error: { type, reason } } },
  });

  it('maps Elasticsearch answers to typed km errors', () => {
    expect(
      isKmError(translateElasticsearchError(response(404, 'index_not_found_exception', 'no such index [km-x]'), 'x'), 'index_not_found'),
    ).toBe(true);
    const dims = translateElasticsearchError(
      response(
        400,
        'document_parsing_exception',
        "The [dense_vector] field [embedding] in doc [document with id 'a'] has a different number of dimensions [2] than defined in the mapping [3]",
      ),
      'x',
    );
    expect(isKmError(dims, 'vector_size_mismatch')).toBe(true);
    expect(
      isKmError(
        translateElasticsearchError(response(401, 'security_exception', 'missing authentication credentials'), 'x'),
        'unauthorized',
      ),
    ).toBe(true);
    const busy = translateElasticsearchError(response(429, 'es_rejected_execution_exception', 'rejected'), 'x');
    expect(isKmError(busy, 'rate_limited') && busy.transient).toBe(true);
    expect(isKmError(translateElasticsearchError({ name: 'ConnectionError', message: 'connect ECONNREFUSED' }, 'x'), 'transient')).toBe(
      true,
    );
    const bad = translateElasticsearchError(response(400, 'parsing_exception', 'unknown query'), 'x');
    expect(isKmError(bad, 'upstream_error') && !bad.transient).toBe(true);
  });
});
