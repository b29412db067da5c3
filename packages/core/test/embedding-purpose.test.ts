import { describe, expect, it } from 'vitest';
import { HashingEmbeddingGenerator, type EmbeddingRequestOptions } from '../src/index.js';
import { inMemoryBuilder } from './helpers.js';

/** Records the purpose of every call, with how many texts it carried. */
class PurposeRecorder extends HashingEmbeddingGenerator {
  readonly calls: Array<{ texts: number; purpose: EmbeddingRequestOptions['purpose'] }> = [];
  override async generateEmbeddings(texts: string[], signal?: AbortSignal, options?: EmbeddingRequestOptions): Promise<Float32Array[]> {
    this.calls.push({ texts: texts.length, purpose: options?.purpose });
    return super.generateEmbeddings(texts, signal);
  }
}

// Generators that share a model between search and ingestion (the local model's worker pool)
// serve queries first: ingestion must say it is ingestion, even for a batch of one text.
describe('GenerateEmbeddingsHandler states the purpose of its calls', () => {
  it('a one-chunk document is embedded as a document, a search as a query', async () => {
    const generator = new PurposeRecorder();
    const memory = inMemoryBuilder({ embeddingGenerator: generator }).build();
    await memory.importText('Comets are icy bodies that release gas near the Sun.', { documentId: 'comet' });
    expect(generator.calls).toEqual([{ texts: 1, purpose: 'document' }]);
    await memory.search('what is a comet?');
    expect(generator.calls.slice(1).every((c) => c.purpose === 'query')).toBe(true);
    expect(generator.calls.length).toBeGreaterThan(1);
  });
});
