import { KernelMemoryBuilder, silentLogger } from '@km/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { OllamaEmbeddingGenerator, OllamaTextGenerator } from '../src/index.js';
import { useFakeOllamaServer } from './fake-ollama-server.js';

const { server, url } = useFakeOllamaServer();
beforeEach(() => server.reset());

// The README's example, against the fake server.
function memory(embeddingModel = 'nomic-embed-text') {
  return new KernelMemoryBuilder()
    .withLogger(silentLogger)
    .withEmbeddingGenerator(new OllamaEmbeddingGenerator({ host: url(), model: embeddingModel, retry: { maxRetries: 0 } }))
    .withTextGenerator(new OllamaTextGenerator({ host: url(), model: 'llama3.2', contextLength: 8192 }))
    .withOrchestratorOptions({ maxAttempts: 3, retryDelayMs: 10 })
    .build();
}

describe('MemoryServerless on Ollama generators', () => {
  it('imports, answers from the model and reports token usage in the answer', async () => {
    server.answer = 'Bees make honey from nectar.';
    const km = memory();
    await km.importText('Honey is made by bees from the nectar of flowers.', { documentId: 'honey' });
    const answer = await km.ask('Who makes honey?');
    expect(answer.text).toBe('Bees make honey from nectar.');
    expect(answer.relevantSources[0]?.documentId).toBe('honey');
    const usage = answer.tokenUsage.find((u) => u.modelType === 'TextGeneration');
    expect(usage).toMatchObject({ serviceType: 'Ollama', modelName: 'ollama/llama3.2' });
    expect(usage!.serviceTokensIn).toBeGreaterThan(0);
  });

  it('an embedding model that is not pulled fails the document with the ollama pull hint', async () => {
    const km = memory('bge-m3');
    await km.importText('A document for a model the server lacks.', { documentId: 'unpulled' }).catch(() => undefined);
    const status = await km.getDocumentStatus('unpulled');
    expect(status?.failed).toBe(true);
    expect(status?.error).toContain('ollama pull bge-m3');
    expect(server.requestsTo('embed')).toHaveLength(1);
  });
});
