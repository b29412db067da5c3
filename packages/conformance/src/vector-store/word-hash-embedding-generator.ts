import type { ITextEmbeddingGenerator, ITextTokenizer } from '@km/core';
import { whitespaceTokenizer, wordsOf } from './test-text.js';

/** FNV-1a over the UTF-16 code units of `text`. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * The suite's own embedding generator: each lower-cased word adds a signed weight to two
 * hashed dimensions (over a small constant one, so no text gives a zero vector). Deterministic and instant, so text searches have exact expected scores;
 * texts sharing words get closer vectors. It counts the texts it embedded.
 *
 * ```ts
 * const generator = new WordHashEmbeddingGenerator(16);
 * const collection = store.getCollection('notes', Note, { embeddingGenerator: generator });
 * ```
 */
export class WordHashEmbeddingGenerator implements ITextEmbeddingGenerator {
  readonly maxTokens = 8192;
  readonly maxBatchSize = 64;
  readonly modelName = 'km-conformance/word-hash';
  readonly tokenizer: ITextTokenizer = whitespaceTokenizer;
  /** Texts embedded so far. */
  embedded = 0;

  constructor(readonly dimensions = 16) {}

  async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    this.embedded += texts.length;
    return texts.map((text) => this.embed(text));
  }

  /** The embedding of one text, synchronously (what the oracle uses). */
  embed(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    vector[this.dimensions - 1] = 0.25; // never a zero vector, whose cosine is undefined
    for (const word of wordsOf(text)) {
      const hash = fnv1a(word);
      vector[hash % this.dimensions]! += hash & 0x100 ? 1 : -1;
      vector[(hash >>> 12) % this.dimensions]! += hash & 0x200 ? 0.5 : -0.5;
    }
    return vector;
  }
}
