import { describe, expect, it } from 'vitest';
import { HashingEmbeddingGenerator, KernelMemoryBuilder, SimpleVectorDb, type Logger, type MemoryRecord } from '../src/index.js';

const collect = async (items: AsyncIterable<MemoryRecord>) => {
  const out: MemoryRecord[] = [];
  for await (const item of items) out.push(item);
  return out;
};

const recording = () => {
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
  return { logger, warnings };
};

describe('the embedding generator when the application chose none', () => {
  it('is hashing embeddings, and the memory says so in one warning naming the way out', async () => {
    const { logger, warnings } = recording();
    const db = new SimpleVectorDb();
    const memory = new KernelMemoryBuilder().withLogger(logger).withMemoryDb(db).build();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('no embedding generator configured: using hashing embeddings');
    expect(warnings[0]).toContain('@km/ai-local');
    await memory.importText('The Moon orbits the Earth.', { documentId: 'moon' });
    const [record] = (await memory.search('Moon orbit', { minRelevance: 0 })).results;
    expect(record?.partitions[0]?.tags.__document_id).toEqual(['moon']);
    const [stored] = await collect(db.getList('default'));
    expect(stored?.payload.vector_generator).toBe(new HashingEmbeddingGenerator().modelName);
  });

  it('is what the application chose, with no warning, when it chose one (or none with null)', () => {
    const chosen = recording();
    new KernelMemoryBuilder().withLogger(chosen.logger).withEmbeddingGenerator(new HashingEmbeddingGenerator()).build();
    new KernelMemoryBuilder().withLogger(chosen.logger).withEmbeddingGenerator(null).build();
    expect(chosen.warnings).toEqual([]);
  });
});
