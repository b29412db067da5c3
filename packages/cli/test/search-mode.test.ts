import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '@km/service/testing';
import { addRetrievalOptions, retrievalOf, type RetrievalCliOptions } from '../src/retrieval-options.js';
import { km, kmProcess } from './helpers.js';

/** The retrieval options `km search <args>` would send. */
function parsed(args: string[]): ReturnType<typeof retrievalOf> {
  let out: ReturnType<typeof retrievalOf> | undefined;
  const command = addRetrievalOptions(new Command('search').argument('<query>'))
    .exitOverride()
    .configureOutput({ writeErr: () => undefined })
    .action((_query: string, opts: RetrievalCliOptions) => {
      out = retrievalOf(opts);
    });
  command.parse(args, { from: 'user' });
  return out!;
}

describe('--mode and --rerank', () => {
  it.each([
    [[], {}],
    [['--mode', 'lexical'], { mode: 'lexical' }],
    [['--mode', 'hybrid', '--rerank'], { mode: 'hybrid', rerank: true }],
    [['--rerank', 'mmr'], { rerank: 'mmr' }],
    [['--rerank=mmr'], { rerank: 'mmr' }],
    [['--no-rerank'], { rerank: false }],
  ])('km search q %j sends %j', (args, expected) => {
    expect(parsed(['q', ...args])).toEqual(expected);
  });

  it.each([
    [['--mode', 'fuzzy'], /Allowed choices are vector, lexical, hybrid/],
    [['--rerank', 'yes'], /--rerank takes no value or 'mmr', got "yes"/],
  ])('refuses %j with a clear message', (args, message) => {
    expect(() => parsed(['q', ...args])).toThrow(message);
  });
});

describe('km search and ask with --mode and --rerank against a service', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ logLevel: 'silent' });
  });
  afterAll(() => service.dispose());

  it('passes them to the service', async () => {
    const search = await km(['search', 'moon', '--mode', 'vector', '--no-rerank', '--json', '--url', service.url]);
    expect(search).toMatchObject({ code: 0 });
    expect(JSON.parse(search.stdout)).toMatchObject({ query: 'moon', noResult: true });
    const ask = await km(['ask', 'moon?', '--mode', 'vector', '--no-rerank', '--json', '--url', service.url]);
    expect(ask).toMatchObject({ code: 0 });
  });

  it('--rerank reaches the service: without a configured reranker it answers invalid_argument (exit 2)', async () => {
    const { code, stderr } = await km(['search', 'moon', '--rerank', '--url', service.url]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no reranker is configured/);
    expect(await km(['search', 'moon', '--rerank', 'mmr', '--url', service.url])).toMatchObject({ code: 0 });
  });

  it('the built km refuses a bad --mode before calling anything', async () => {
    const { code, stderr } = await kmProcess(['search', 'moon', '--mode', 'fuzzy', '--url', service.url]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--mode <mode>' argument 'fuzzy' is invalid\. Allowed choices are vector, lexical, hybrid/);
  });
});

describe('km serve --search-mode and --reranker', () => {
  it('refuses an unknown mode or reranker by name', async () => {
    const mode = await km(['serve', '--search-mode', 'semantic', '--port', '0']);
    expect(mode.code).not.toBe(0);
    expect(mode.stderr).toMatch(/--search-mode <mode>' argument 'semantic' is invalid\. Allowed choices are vector, lexical, hybrid/);
    const reranker = await km(['serve', '--reranker', 'openai', '--port', '0']);
    expect(reranker.stderr).toMatch(/Allowed choices are none, mmr, cohere, jina, voyage/);
  });

  it('passes them to the service configuration, which names what is missing', async () => {
    const { code, stderr } = await km(['serve', '--reranker', 'cohere', '--reranker-url', 'http://127.0.0.1:1', '--port', '0']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/search.reranker is cohere but search.rerankerApiKey \(KM_RERANKER_API_KEY\) is not set/);
  });
});
