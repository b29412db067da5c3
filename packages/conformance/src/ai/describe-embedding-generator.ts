import type { ITextEmbeddingGenerator } from '@km/core';
import { cosineSimilarity } from '@km/core/connector';
import { expect } from 'vitest';
import { describeGeneratorSuite, type GeneratorSuiteOptions } from './generator-suite.js';

/** How the suite gets an embedding generator. */
export interface EmbeddingGeneratorSuiteOptions extends GeneratorSuiteOptions<ITextEmbeddingGenerator> {
  /** Expected vector size, when fixed. */
  dimensions?: number;
  /** Timeout of each case, in ms. @default 30000 */
  timeoutMs?: number;
}

const texts = ['The cat sat on the mat.', 'A cat was sitting on the mat.', 'Quarterly revenue grew by ten percent.'];

/**
 * The embedding generator conformance suite: one finite vector per text, in order, of a
 * stable size; batches equal single calls; related texts score above unrelated ones; an
 * aborted signal rejects.
 */
export function describeEmbeddingGenerator(name: string, options: EmbeddingGeneratorSuiteOptions): void {
  describeGeneratorSuite(`ITextEmbeddingGenerator conformance: ${name}`, options, 30_000, {
    'returns one finite vector per text, in order, all of one size': async (g) => {
      const vectors = await g.generateEmbeddings(texts);
      expect(vectors).toHaveLength(texts.length);
      const size = options.dimensions ?? g.dimensions ?? vectors[0]!.length;
      for (const v of vectors) {
        expect(v.length).toBe(size);
        expect(Array.from(v).every(Number.isFinite)).toBe(true);
      }
      expect(await g.generateEmbeddings([])).toEqual([]);
    },

    'a text embedded alone or in a batch gets the same vector': async (g) => {
      const batch = await g.generateEmbeddings(texts);
      const [alone] = await g.generateEmbeddings([texts[2]!]);
      expect(cosineSimilarity(alone!, batch[2]!)).toBeGreaterThan(0.999);
    },

    'related texts score higher than unrelated ones': async (g) => {
      const [a, b, c] = await g.generateEmbeddings(texts);
      expect(cosineSimilarity(a!, b!)).toBeGreaterThan(cosineSimilarity(a!, c!));
    },

    'declares its limits and counts tokens': async (g) => {
      expect(g.maxTokens).toBeGreaterThan(0);
      expect(g.tokenizer.countTokens(texts[0]!)).toBeGreaterThan(0);
    },

    'an aborted signal rejects': async (g) => {
      const controller = new AbortController();
      controller.abort();
      await expect(g.generateEmbeddings(texts, controller.signal)).rejects.toBeTruthy();
    },
  });
}
