import { KernelMemoryBuilder, silentLogger } from '@km/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { OpenAIEmbeddingGenerator, OpenAITextGenerator } from '../src/index.js';
import { useFakeOpenAIServer } from './fake-openai-server.js';

const { server, url } = useFakeOpenAIServer();
beforeEach(() => {
  server.failures.length = 0;
  server.requests.length = 0;
});

function memory(maxRetries = 0) {
  const connection = { apiKey: 'sk-test', baseURL: url() };
  return new KernelMemoryBuilder()
    .withLogger(silentLogger)
    .withEmbeddingGenerator(
      new OpenAIEmbeddingGenerator({ connection, model: 'text-embedding-3-small', dimensions: 64, retry: { maxRetries } }),
    )
    .withTextGenerator(new OpenAITextGenerator({ connection, model: 'gpt-4o-mini' }))
    .withOrchestratorOptions({ maxAttempts: 3, retryDelayMs: 10 })
    .build();
}

describe('MemoryServerless on OpenAI generators', () => {
  it('imports, answers from the model and reports token usage in the answer', async () => {
    server.answer = 'Bees make honey from nectar.';
    const km = memory();
    await km.importText('Honey is made by bees from the nectar of flowers.', { documentId: 'honey' });
    const answer = await km.ask('Who makes honey?');
    expect(answer.text).toBe('Bees make honey from nectar.');
    expect(answer.relevantSources[0]?.documentId).toBe('honey');
    const usage = answer.tokenUsage.find((u) => u.modelType === 'TextGeneration');
    expect(usage).toMatchObject({ serviceType: 'OpenAI', modelName: 'openai/gpt-4o-mini' });
    expect(usage!.serviceTokensIn).toBeGreaterThan(0);
  });

  it('a transient embedding failure is retried by the pipeline and the document completes', async () => {
    server.failures.push({ status: 503 }, { status: 503 });
    const km = memory(0);
    await km.importText('A document that meets a flaky embeddings endpoint.', { documentId: 'flaky' });
    const status = await km.getDocumentStatus('flaky');
    expect(status?.completed).toBe(true);
    expect(server.requestsTo('embeddings').length).toBeGreaterThanOrEqual(3);
  });

  it('a fatal embedding failure fails the document with the reason, without retries', async () => {
    server.failures.push({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    const km = memory(0);
    await km.importText('A document whose embeddings are refused.', { documentId: 'refused' }).catch(() => undefined);
    const status = await km.getDocumentStatus('refused');
    expect(status?.failed).toBe(true);
    expect(status?.error).toMatch(/HTTP 401/);
    expect(server.requestsTo('embeddings')).toHaveLength(1);
  });
});
