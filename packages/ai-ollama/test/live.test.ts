import type { TokenUsage } from '@km/core';
import { describe, expect, it } from 'vitest';
import { OllamaEmbeddingGenerator, OllamaTextGenerator } from '../src/index.js';

// Against a real Ollama, when one is given (the models must be pulled there).
const host = process.env.KM_TEST_OLLAMA_URL;
const textModel = process.env.KM_TEST_OLLAMA_TEXT_MODEL ?? 'llama3.2';
const embeddingModel = process.env.KM_TEST_OLLAMA_EMBEDDING_MODEL ?? 'nomic-embed-text';
if (!host) console.log('[km] skipped live Ollama tests: KM_TEST_OLLAMA_URL is not set (an Ollama server with the models pulled)');

describe.skipIf(!host)('ollama live', { timeout: 180_000 }, () => {
  it('streams an answer within num_predict and reports the counts of the final chunk', async () => {
    const g = new OllamaTextGenerator({ host, model: textModel });
    let usage: TokenUsage | undefined;
    const pieces: string[] = [];
    for await (const piece of g.generate('Count from one to fifty in words.', { maxTokens: 8, onUsage: (u) => (usage = u) }))
      pieces.push(piece);
    expect(pieces.join('').length).toBeGreaterThan(0);
    expect(usage?.serviceTokensOut).toBeGreaterThan(0);
    expect(usage?.serviceTokensOut).toBeLessThanOrEqual(8);
  });

  it('a model that is not pulled fails with the command to pull it', async () => {
    const g = new OllamaTextGenerator({ host, model: 'km-test-no-such-model' });
    const run = async () => {
      for await (const _ of g.generate('hi', {})) void _;
    };
    await expect(run()).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('ollama pull km-test-no-such-model'),
    });
  });

  it('an abort mid-answer stops the stream', async () => {
    const g = new OllamaTextGenerator({ host, model: textModel });
    const controller = new AbortController();
    const run = async () => {
      for await (const _ of g.generate('Write a long story about the sea.', { maxTokens: 500, signal: controller.signal }))
        controller.abort();
    };
    await expect(run()).rejects.toMatchObject({ code: 'aborted' });
  });

  it('learns the vector size and embeds a batch as single calls do', async () => {
    const g = new OllamaEmbeddingGenerator({ host, model: embeddingModel });
    const inputs = ['The cat sat on the mat.', 'Quarterly revenue grew.', 'A dog barked.'];
    const batch = await g.generateEmbeddings(inputs);
    expect(g.dimensions).toBe(batch[0]!.length);
    const [alone] = await g.generateEmbeddings([inputs[1]!]);
    const dot = alone!.reduce((s, x, i) => s + x * batch[1]![i]!, 0);
    const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    expect(dot / (norm(alone!) * norm(batch[1]!))).toBeGreaterThan(0.999);
  });
});
