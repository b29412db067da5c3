import type { ITextEmbeddingGenerator } from '@km/core';
import { cosineSimilarity } from '@km/core/connector';
import { describe, expect, it } from 'vitest';

/** How the suite gets an embedding generator. */
export interface EmbeddingGeneratorSuiteOptions {
  create: () => Promise<ITextEmbeddingGenerator> | ITextEmbeddingGenerator;
  dispose?: (generator: ITextEmbeddingGenerator) => Promise<void> | void;
  /** Expected vector size, when fixed. */
  dimensions?: number;
  /** Timeout of each case, in ms. @default 30000 */
  timeoutMs?: number;
  skip?: string | false;
}

/**
 * The embedding generator conformance suite: one finite vector per text, in order, of a
 * stable size; batches equal single calls; related texts score above unrelated ones; an
 * aborted signal rejects.
 */
export function describeEmbeddingGenerator(name: string, options: EmbeddingGeneratorSuiteOptions): void {
  describe(`ITextEmbeddingGenerator conformance: ${name}`, () => {
    if (options.skip) {
      it.skip(`skipped: ${options.skip}`, () => undefined);
      return;
    }
    const timeout = options.timeoutMs ?? 30_000;
    const withGenerator = async (fn: (g: ITextEmbeddingGenerator) => Promise<void>) => {
      const g = await options.create();
      try {
        await fn(g);
      } finally {
        await options.dispose?.(g);
      }
    };
    const texts = ['The cat sat on the mat.', 'A cat was sitting on the mat.', 'Quarterly revenue grew by ten percent.'];

    it(
      'returns one finite vector per text, in order, all of one size',
      async () => {
        await withGenerator(async (g) => {
          const vectors = await g.generateEmbeddings(texts);
          expect(vectors).toHaveLength(texts.length);
          const size = options.dimensions ?? g.dimensions ?? vectors[0]!.length;
          for (const v of vectors) {
            expect(v.length).toBe(size);
            expect(Array.from(v).every(Number.isFinite)).toBe(true);
          }
          expect(await g.generateEmbeddings([])).toEqual([]);
        });
      },
      timeout,
    );

    it(
      'a text embedded alone or in a batch gets the same vector',
      async () => {
        await withGenerator(async (g) => {
          const batch = await g.generateEmbeddings(texts);
          const [alone] = await g.generateEmbeddings([texts[2]!]);
          expect(cosineSimilarity(alone!, batch[2]!)).toBeGreaterThan(0.999);
        });
      },
      timeout,
    );

    it(
      'related texts score higher than unrelated ones',
      async () => {
        await withGenerator(async (g) => {
          const [a, b, c] = await g.generateEmbeddings(texts);
          expect(cosineSimilarity(a!, b!)).toBeGreaterThan(cosineSimilarity(a!, c!));
        });
      },
      timeout,
    );

    it(
      'declares its limits and counts tokens',
      async () => {
        await withGenerator(async (g) => {
          expect(g.maxTokens).toBeGreaterThan(0);
          expect(g.tokenizer.countTokens(texts[0]!)).toBeGreaterThan(0);
        });
      },
      timeout,
    );

    it(
      'an aborted signal rejects',
      async () => {
        await withGenerator(async (g) => {
          const controller = new AbortController();
          controller.abort();
          await expect(g.generateEmbeddings(texts, controller.signal)).rejects.toBeTruthy();
        });
      },
      timeout,
    );
  });
}
