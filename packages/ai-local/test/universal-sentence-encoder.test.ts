import { HashingEmbeddingGenerator, isKmError } from '@km/core';
import { cosineSimilarity } from '@km/core/connector';
import { describeEmbeddingGenerator } from '@km/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { UniversalSentenceEncoderGenerator } from '../src/index.js';
import { PARAPHRASES, UNRELATED } from './fixtures/sentence-pairs.js';

describeEmbeddingGenerator('Universal Sentence Encoder lite, 2 worker threads', {
  create: () => new UniversalSentenceEncoderGenerator({ workers: 2 }),
  dispose: (g) => (g as UniversalSentenceEncoderGenerator).close(),
  dimensions: 512,
});

describeEmbeddingGenerator('Universal Sentence Encoder lite, on the calling thread', {
  create: () => new UniversalSentenceEncoderGenerator({ workers: 0 }),
  dimensions: 512,
});

describe('UniversalSentenceEncoderGenerator', () => {
  const generator = new UniversalSentenceEncoderGenerator({ workers: 2, maxBatchSize: 4 });
  afterAll(() => generator.close());

  async function scores(pairs: Array<[string, string]>, g: { generateEmbeddings(t: string[]): Promise<Float32Array[]> }) {
    const vectors = await g.generateEmbeddings(pairs.flat());
    return pairs.map((_, i) => cosineSimilarity(vectors[2 * i]!, vectors[2 * i + 1]!));
  }

  it('scores paraphrases clearly above unrelated pairs (and does what hashing cannot)', async () => {
    const similar = await scores(PARAPHRASES, generator);
    const unrelated = await scores(UNRELATED, generator);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // Every paraphrase pair beats every unrelated pair, by a clear margin on average.
    expect(Math.min(...similar)).toBeGreaterThan(Math.max(...unrelated));
    expect(mean(similar) - mean(unrelated)).toBeGreaterThan(0.3);
    // The same check fails with word hashing: these paraphrases share few words.
    const hashing = new HashingEmbeddingGenerator();
    expect(Math.min(...(await scores(PARAPHRASES, hashing)))).toBeLessThan(Math.max(...(await scores(UNRELATED, hashing))));
  });

  it('spreads a large call over the workers and keeps the order', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `Sentence number ${i} talks about topic ${i % 3}.`);
    const pooled = await generator.generateEmbeddings(texts);
    const inline = await new UniversalSentenceEncoderGenerator({ workers: 0 }).generateEmbeddings(texts);
    expect(pooled).toHaveLength(20);
    pooled.forEach((v, i) => expect(cosineSimilarity(v, inline[i]!)).toBeGreaterThan(0.9999));
  });

  it('refuses empty inputs instead of returning fewer vectors', async () => {
    const error = await generator.generateEmbeddings(['fine', '  ']).catch((e) => e);
    expect(isKmError(error, 'empty_content')).toBe(true);
    expect(error.message).toMatch(/input 1 is empty/);
  });

  it('an abort while queued rejects at once and the pool keeps working', async () => {
    const controller = new AbortController();
    const busy = generator.generateEmbeddings(Array.from({ length: 16 }, (_, i) => `busy text ${i}`));
    const aborted = generator.generateEmbeddings(['waiting in line'], controller.signal);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'aborted' });
    await busy;
    expect(await generator.generateEmbeddings(['still alive'])).toHaveLength(1);
  });

  it('declares its model', () => {
    expect(generator.modelName).toBe('local/universal-sentence-encoder-lite');
    expect(generator.dimensions).toBe(512);
    expect(generator.workers).toBe(2);
  });
});
