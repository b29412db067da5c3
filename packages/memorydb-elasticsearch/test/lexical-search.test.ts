import { startRequestRecorder, type RecordedRequest, type RequestRecorder } from '@km/conformance';
import { MemoryFilters } from '@km/core';
import { driverCapabilities } from '@km/core/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ElasticsearchMemoryDb,
  ElasticsearchMemoryDbDriver,
  lexicalScore,
  lexicalSearchRequest,
  scoreFromRelevance,
} from '../src/index.js';

// Shapes from Elasticsearch's query DSL reference: a `match` query analyses its text with the
// field's analyzer (never parsed as query syntax, unlike `query_string`), `operator: or` lets
// any word match, `zero_terms_query: none` matches nothing when no token is left.
const HOSTILE = `zephyr" OR 1=1; DROP TABLE t; -- & | ! ( ) : * \\ < > {"match_all":{}} AND`;

const match = (text: string) => ({ match: { content: { query: text, operator: 'or', zero_terms_query: 'none' } } });

describe('lexicalSearchRequest', () => {
  it('a match query on content, best first then id order, limit as size, no vector or content copy in _source', () => {
    expect(lexicalSearchRequest({ text: 'tax rules', filters: [], limit: 5, withEmbeddings: false })).toEqual({
      query: { bool: { must: [match('tax rules')] } },
      size: 5,
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
      track_scores: true,
      _source: { excludes: ['content', 'embedding'] },
    });
    expect(lexicalSearchRequest({ text: 'x', filters: [], limit: 5, withEmbeddings: true })._source).toEqual({ excludes: ['content'] });
  });

  it('filters are the kNN translation, as a bool filter (they restrict, they do not score)', () => {
    const filters = [MemoryFilters.byTag('user', 'alice').notTag('type', 'draft'), MemoryFilters.byTag('type', 'blog')];
    expect(lexicalSearchRequest({ text: 'zephyr', filters, limit: 3, withEmbeddings: false }).query).toEqual({
      bool: {
        must: [match('zephyr')],
        filter: [
          {
            bool: {
              should: [
                { bool: { must: [{ term: { tags: 'user:alice' } }], must_not: [{ terms: { tags: ['type:draft'] } }] } },
                { bool: { must: [{ term: { tags: 'type:blog' } }] } },
              ],
              minimum_should_match: 1,
            },
          },
        ],
      },
    });
  });

  it('hostile text stays the data of the match query, byte for byte; no query_string anywhere', () => {
    const request = lexicalSearchRequest({ text: HOSTILE, filters: [], limit: 3, withEmbeddings: false });
    expect(request.query).toEqual({ bool: { must: [match(HOSTILE)] } });
    expect(JSON.stringify(request)).not.toMatch(/query_string|simple_query_string|wildcard|regexp/);
  });

  it('size stays within Elasticsearch 10000-hit window', () => {
    expect(lexicalSearchRequest({ text: 'x', filters: [], limit: 50_000, withEmbeddings: false }).size).toBe(10_000);
  });
});

describe('lexicalScore', () => {
  it('maps BM25 scores to [0, 1), monotone: score / (score + 1)', () => {
    const scores = [0, 0.01, 0.5, 1, 3, 10, 1e6].map(lexicalScore);
    expect(scores[0]).toBe(0);
    expect(scores[3]).toBe(0.5);
    for (let i = 1; i < scores.length; i++) expect(scores[i]!).toBeGreaterThan(scores[i - 1]!);
    for (const s of scores) expect(s).toBeLessThan(1);
    expect(lexicalScore(-1)).toBe(0);
  });
});

describe('ElasticsearchMemoryDbDriver.lexicalSearch', () => {
  let recorder: RequestRecorder;
  let seen: RecordedRequest[];
  beforeAll(async () => {
    recorder = await startRequestRecorder(() => ({
      headers: { 'x-elastic-product': 'Elasticsearch' },
      json: {
        hits: {
          hits: [
            { _id: 'b', _score: 3, _source: { id: 'b', tags: ['user:a'], payload: { text: 'zephyr zephyr' } } },
            { _id: 'a', _score: 1, _source: { id: 'a', tags: [], payload: { text: 'zephyr' } } },
          ],
        },
      },
    }));
    seen = recorder.requests;
  });
  afterAll(() => recorder.close());
  beforeEach(() => {
    seen.length = 0;
  });

  it('declares the lexicalSearch capability', () => {
    expect(driverCapabilities(new ElasticsearchMemoryDbDriver({ node: recorder.url })).lexicalSearch).toBe(true);
  });

  it('sends one search on the prefixed index and returns records with scores in [0, 1), in order', async () => {
    const driver = new ElasticsearchMemoryDbDriver({ node: recorder.url, maxRetries: 0 });
    const results = await driver.lexicalSearch('notes', {
      text: HOSTILE,
      filters: [MemoryFilters.byTag('user', 'a')],
      limit: 7,
      withEmbeddings: false,
    });
    expect(results.map(([r, score]) => [r.id, score])).toEqual([
      ['b', 0.75],
      ['a', 0.5],
    ]);
    expect(results[0]![0]).toMatchObject({ tags: { user: ['a'] }, payload: { text: 'zephyr zephyr' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.path).toMatch(/^\/km-notes\/_search\?/);
    expect(seen[0]!.path).toContain('ignore_unavailable=true');
    expect(JSON.parse(seen[0]!.body)).toEqual({
      query: { bool: { must: [match(HOSTILE)], filter: [{ bool: { must: [{ term: { tags: 'user:a' } }] } }] } },
      size: 7,
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
      track_scores: true,
      _source: { excludes: ['content', 'embedding'] },
      track_total_hits: false,
    });
  });
});

describe('ElasticsearchMemoryDb: modes lexical and hybrid through core', () => {
  let recorder: RequestRecorder;
  let seen: RecordedRequest[];
  const source = (id: string, embedding: number[]) => ({ id, tags: [], payload: { text: id }, embedding });
  beforeAll(async () => {
    recorder = await startRequestRecorder(({ method, path, body }) => {
      const headers = { 'x-elastic-product': 'Elasticsearch' };
      if (method === 'GET' && path.includes('/_mapping')) {
        return { headers, json: { 'km-notes': { mappings: { properties: { embedding: { type: 'dense_vector', dims: 2 } } } } } };
      }
      const request = JSON.parse(body) as { knn?: unknown };
      // The vector side finds "near"; the words find "far" (vector opposite the query) and "near".
      const hits = request.knn
        ? [{ _id: 'near', _score: scoreFromRelevance(1), _source: source('near', [1, 0]) }]
        : [
            { _id: 'far', _score: 4, _source: source('far', [-1, 0]) },
            { _id: 'near', _score: 1, _source: source('near', [1, 0]) },
          ];
      return { headers, json: { hits: { hits } } };
    });
    seen = recorder.requests;
  });
  afterAll(() => recorder.close());
  beforeEach(() => {
    seen.length = 0;
  });
  const searches = () =>
    seen.filter((s) => s.path.startsWith('/km-notes/_search')).map((s) => JSON.parse(s.body) as Record<string, unknown>);

  it('lexical: one match query, the text as given, relevance the mapped BM25 score', async () => {
    const db = new ElasticsearchMemoryDb({ node: recorder.url, maxRetries: 0 });
    const results = [];
    for await (const r of db.getSimilarList('notes', HOSTILE, { mode: 'lexical', limit: 4 })) results.push(r);
    expect(results.map(([r, score]) => [r.id, score])).toEqual([
      ['far', 0.8],
      ['near', 0.5],
    ]);
    expect(searches()).toEqual([expect.objectContaining({ query: { bool: { must: [match(HOSTILE)] } }, size: 4 })]);
  });

  it('hybrid: a kNN search and a match query (with vectors) of max(limit, 50) each, results with their cosine', async () => {
    const db = new ElasticsearchMemoryDb({ node: recorder.url, maxRetries: 0 });
    const results = [];
    for await (const r of db.getSimilarList('notes', [1, 0], { mode: 'hybrid', text: 'zephyr', limit: 2, minRelevance: -1 })) {
      results.push(r);
    }
    const [knn, words] = [searches().find((s) => s.knn), searches().find((s) => s.query)];
    expect(knn).toMatchObject({ knn: { k: 50 }, size: 50 });
    expect(words).toMatchObject({ query: { bool: { must: [match('zephyr')] } }, size: 50, _source: { excludes: ['content'] } });
    expect(results.map(([r, cosine]) => [r.id, cosine])).toEqual([
      ['near', expect.closeTo(1, 6)],
      ['far', expect.closeTo(-1, 6)],
    ]);
  });
});
