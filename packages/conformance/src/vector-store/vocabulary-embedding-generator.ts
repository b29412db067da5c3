import type { ITextEmbeddingGenerator, ITextTokenizer } from '@km/core';
import { whitespaceTokenizer, wordsOf } from './test-text.js';

/**
 * A test embedding generator whose dimensions are words: each dimension counts one word of
 * `vocabulary` in the text (lower-cased), over a last, constant dimension (so no text gives a
 * zero vector). Texts sharing more vocabulary words are closer, so a test can say which record
 * a query must find first. Deterministic and instant.
 *
 * ```ts
 * const embeddings = new VocabularyEmbeddingGenerator(['sea', 'mountain', 'pool']);
 * const hotels = store.getCollection('hotels', Hotel, { embeddingGenerator: embeddings }); // Hotel's vector: embeddings.dimensions
 * ```
 */
export class VocabularyEmbeddingGenerator implements ITextEmbeddingGenerator {
  readonly maxTokens = 8192;
  readonly maxBatchSize = 64;
  readonly modelName = 'km-conformance/vocabulary';
  readonly tokenizer: ITextTokenizer = whitespaceTokenizer;
  readonly dimensions: number;
  private readonly index: ReadonlyMap<string, number>;

  constructor(readonly vocabulary: readonly string[]) {
    this.dimensions = vocabulary.length + 1;
    this.index = new Map(vocabulary.map((word, i) => [word.toLowerCase(), i]));
  }

  async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      vector[this.dimensions - 1] = 0.1;
      for (const word of wordsOf(text)) {
        const at = this.index.get(word);
        if (at !== undefined) vector[at]! += 1;
      }
      return vector;
    });
  }
}
