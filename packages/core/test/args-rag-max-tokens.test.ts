import { describe, expect, it } from 'vitest';
import { HashingEmbeddingGenerator, KernelMemoryBuilder, SimpleVectorDb, isKmError, silentLogger } from '../src/index.js';
import { ScriptedTextGenerator } from './helpers.js';

const MOON = 'The Moon orbits the Earth at an average distance of 384,400 km.';

async function setup() {
  const generator = new ScriptedTextGenerator(() => 'About 384,400 km.', 1000);
  const memory = new KernelMemoryBuilder()
    .withMemoryDb(new SimpleVectorDb())
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withTextGenerator(generator)
    .withLogger(silentLogger)
    .build();
  await memory.importText(MOON, { documentId: 'moon' });
  return { memory, generator };
}

describe('custom_rag_max_tokens_int must leave room for facts', () => {
  it('a value that fills the generator’s context is invalid_argument naming the argument and the limit', async () => {
    const { memory, generator } = await setup();
    for (const value of [1000, 5000, 995]) {
      const error = await memory.ask('How far is the Moon?', { args: { custom_rag_max_tokens_int: value } }).catch((e: unknown) => e);
      expect(isKmError(error, 'invalid_argument')).toBe(true);
      expect((error as Error).message).toMatch(
        /argument "custom_rag_max_tokens_int" \(\d+\) leaves no room for facts: .*1000 tokens \(maxTokenTotal\).*the largest value accepted is \d+/,
      );
    }
    expect(generator.prompts).toEqual([]);
  });

  it('a value that leaves room answers', async () => {
    const { memory } = await setup();
    const answer = await memory.ask('How far is the Moon?', { args: { custom_rag_max_tokens_int: 200 } });
    expect(answer).toMatchObject({ noResult: false, text: 'About 384,400 km.' });
  });
});
