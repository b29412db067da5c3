import { createHash } from 'node:crypto';
import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { ITextTokenizer } from '../contracts/text-tokenizer.js';
import { CL100KTokenizer } from './gpt-tokenizer.js';

/** Options of {@link HashingEmbeddingGenerator}. */
export interface HashingEmbeddingGeneratorOptions {
  /** Vector size. @default 384 */
  dimensions?: number;
  /** Character n-gram sizes hashed besides whole words. @default [3, 4] */
  ngrams?: number[];
  /** Weight of a word feature relative to an n-gram feature. @default 2 */
  wordWeight?: number;
}

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Deterministic, dependency-free embeddings: L2-normalised feature hashing of lower-cased
 * words and their character n-grams (signed hashing trick). Texts sharing words or word
 * pieces get similar vectors; it knows no synonyms. It is the fallback when no model is
 * configured, and the generator unit tests use.
 *
 * ```ts
 * const [v] = await new HashingEmbeddingGenerator().generateEmbeddings(['hello']);
 * ```
 */
export class HashingEmbeddingGenerator implements ITextEmbeddingGenerator {
  readonly dimensions: number;
  readonly maxTokens: number = 8192;
  readonly maxBatchSize: number = 256;
  readonly modelName: string;
  readonly tokenizer: ITextTokenizer = new CL100KTokenizer();
  private readonly ngrams: number[];
  private readonly wordWeight: number;

  constructor(options: HashingEmbeddingGeneratorOptions = {}) {
    this.dimensions = options.dimensions ?? 384;
    this.ngrams = options.ngrams ?? [3, 4];
    this.wordWeight = options.wordWeight ?? 2;
    this.modelName = `km/hashing-${this.dimensions}-${this.ngrams.join('')}-${this.wordWeight}`;
  }

  async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    return texts.map((t) => this.embed(t));
  }

  /** The embedding of one text, synchronously. */
  embed(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    for (const match of text.toLowerCase().matchAll(WORD)) {
      const word = match[0];
      this.add(vector, `w:${word}`, this.wordWeight);
      const padded = `<${word}>`;
      for (const n of this.ngrams) {
        for (let i = 0; i + n <= padded.length; i++) this.add(vector, `g:${padded.slice(i, i + n)}`, 1);
      }
    }
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
    return vector;
  }

  private add(vector: Float32Array, feature: string, weight: number): void {
    const h = fnv1a(feature);
    const sign = h & 0x80000000 ? -1 : 1;
    vector[(h & 0x7fffffff) % this.dimensions]! += sign * weight;
  }
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** SHA-256 of a text, hex; used to recognise unchanged partitions. */
export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
