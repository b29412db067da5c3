import { startRequestRecorder, type RecordedRequest, type RequestRecorder } from '@km/conformance';
import { compileFilter, KmRecordLayout } from '@km/core/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ElasticsearchMemoryDb, KM_FIELD_STORAGE, lexicalScore, lexicalSearchRequest, scoreFromRelevance } from '../src/index.js';

// Shapes from Elasticsearch's query DSL reference: a `match` query analyses its text with the
// field's analyzer (never parsed as query syntax, unlike `query_string`), `operator: or` lets
// any word match, `zero_terms_query: none` matches nothing when no token is left.
const HOSTILE = `zephyr" OR 1=1; DROP TABLE t; -- & | ! ( ) : * \\ < > {"match_all":{}} AND`;

const match = (text: string) => ({ match: { content: { query: text, operator: 'or', zero_terms_query: 'none' } } });

// KM's memory layout: the request of km 0.x's driver, now the typed driver's on KM's `content`.
const definition = new KmRecordLayout({ prefix: '' }).definition(3);
const content = definition.data.find((p) => p.fullText)!;
const request = (text: string, limit: number, includeVectors = false, filter?: object) =>
  lexicalSearchRequest(
    definition,
    { property: content, text, filter: filter && compileFilter(definition, filter as never), limit, includeVectors },
    KM_FIELD_STORAGE,
  );

describe('lexicalSearchRequest', () => {
  it('a match query on content, best first then id order, limit as size, no vector or content copy in _source', () => {
    expect(request('tax rules', 5)).toEqual({
      query: { bool: { must: [match('tax rules')] } },
      size: 5,
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
      track_scores: true,
      _source: { excludes: ['content', 'embedding'] },
    });
    expect(request('x', 5, true)._source).toEqual({ excludes: ['content'] });
  });

  it('filters are the typed filter translation, as a bool filter (they restrict, they do not score)', () => {
    const filter = {
      or: [{ tags: { contains: 'user:alice' }, not: { tags: { contains: 'type:draft' } } }, { tags: { contains: 'type:blog' } }],
    };
    expect(request('zephyr', 3, false, filter).query).toEqual({
      bool: {
        must: [match('zephyr')],
        filter: [
          {
            bool: {
              should: [
                { bool: { filter: [{ term: { tags: 'user:alice' } }, { bool: { must_not: [{ term: { tags: 'type:draft' } }] } }] } },
                { term: { tags: 'type:blog' } },
              ],
              minimum_should_match: 1,
            },
          },
        ],
      },
    });
  });

  it('hostile text stays the data of the match query, byte for byte; no query_string anywhere', () => {
    const hostile = request(HOSTILE, 3);
    expect(hostile.query).toEqual({ bool: { must: [match(HOSTILE)] } });
    expect(JSON.stringify(hostile)).not.toMatch(/query_string|simple_query_string|wildcard|regexp/);
  });

  it('size stays within Elasticsearch 10000-hit window', () => {
    expect(request('x', 50_000).size).toBe(10_000);
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

  it('declares the lexicalSearch capability', () => {
    expect(new ElasticsearchMemoryDb({ node: recorder.url }).capabilities.lexicalSearch).toBe(true);
  });

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
