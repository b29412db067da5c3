import { HashingEmbeddingGenerator, KernelMemoryBuilder, silentLogger } from '@km/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { AnthropicTextGenerator } from '../src/index.js';
import { useFakeAnthropicServer } from './fake-anthropic-server.js';

const { server, url } = useFakeAnthropicServer();
beforeEach(() => server.reset());

// Anthropic has no embeddings: the README pairs Claude with another embedding generator.
function memory() {
  return new KernelMemoryBuilder()
    .withLogger(silentLogger)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator({ dimensions: 64 }))
    .withTextGenerator(new AnthropicTextGenerator({ apiKey: server.apiKey, baseURL: url(), model: 'claude-haiku-4-5' }))
    .build();
}

describe('MemoryServerless with Claude answering', () => {
  it('answers from the model with the retrieved facts in the prompt, and reports its usage', async () => {
    server.answer = 'Bees make honey from nectar.';
    const km = memory();
    await km.importText('Honey is made by bees from the nectar of flowers.', { documentId: 'honey' });
    const answer = await km.ask('Who makes honey?');
    expect(answer.text).toBe('Bees make honey from nectar.');
    expect(answer.relevantSources[0]?.documentId).toBe('honey');
    const content = JSON.stringify(server.requests.at(-1)?.body.messages);
    expect(content).toContain('nectar of flowers');
    expect(content).toContain('Who makes honey?');
    const usage = answer.tokenUsage.find((u) => u.modelType === 'TextGeneration');
    expect(usage).toMatchObject({ serviceType: 'Anthropic', modelName: 'anthropic/claude-haiku-4-5' });
    expect(usage!.serviceTokensIn).toBeGreaterThan(0);
  });

  it('asking for another model switches it for that answer', async () => {
    const km = memory();
    await km.importText('Honey is made by bees from the nectar of flowers.', { documentId: 'honey' });
    await km.ask('Who makes honey?', { args: { custom_text_generation_model_name: 'claude-opus-4-5' } });
    expect(server.requests.at(-1)?.body.model).toBe('claude-opus-4-5');
  });
});
