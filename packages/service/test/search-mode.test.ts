import { describe, expect, it } from 'vitest';
import { expectProblem, useTestService } from './helpers.js';

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('mode, fusion and rerank in search and ask bodies', () => {
  const service = useTestService({ overrides: { logLevel: 'warn' }, disposeTimeoutMs: 30_000 });

  it.each([
    [{ mode: 'fuzzy' }, /'mode' must be 'vector', 'lexical' or 'hybrid', got "fuzzy"/],
    [{ mode: 3 }, /'mode' must be/],
    [{ fusion: 'rrf' }, /'fusion' must be an object/],
    [{ fusion: [] }, /'fusion' must be an object/],
    [{ fusion: { method: 'max' } }, /'fusion.method' must be 'rrf' or 'weighted', got "max"/],
    [{ fusion: { vectorWeight: '0.5' } }, /'fusion.vectorWeight' must be a number/],
    [{ fusion: { rrfK: true } }, /'fusion.rrfK' must be a number/],
    [{ fusion: { k: 60 } }, /'fusion.k' is unknown/],
    [{ rerank: 'yes' }, /'rerank' must be true, false or 'mmr', got "yes"/],
    [{ rerank: 1 }, /'rerank' must be/],
    [{ minRelevance: '0.5' }, /'minRelevance' must be a number/],
  ])('answers 400 naming the field for %j on /search and /ask', async (fields, detail) => {
    const search = await expectProblem(await post(service().url, '/search', { query: 'moon', ...fields }), 400, detail);
    expect(search.code).toBe('invalid_argument');
    const ask = await expectProblem(await post(service().url, '/ask', { question: 'moon?', ...fields }), 400, detail);
    expect(ask.code).toBe('invalid_argument');
  });

  it('takes null for each field as absent, as KM clients send nulls', async () => {
    const res = await post(service().url, '/search', { query: 'moon', mode: null, fusion: null, rerank: null, minRelevance: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ query: 'moon', noResult: true });
  });

  it('documents the fields in the OpenAPI description of both bodies', async () => {
    const doc = (await (await fetch(`${service().url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[]; properties?: object }> }> };
    };
    for (const schema of ['SearchQuery', 'MemoryQuery']) {
      const properties = doc.components.schemas[schema]?.properties ?? {};
      expect(properties.mode?.enum).toEqual(['vector', 'lexical', 'hybrid']);
      expect(Object.keys(properties.fusion?.properties ?? {})).toEqual(['method', 'vectorWeight', 'rrfK']);
      expect(properties.rerank).toBeDefined();
    }
  });
});
