import { afterAll, describe, expect, it } from 'vitest';

const counts = () => ({
  uncaughtException: process.listenerCount('uncaughtException'),
  unhandledRejection: process.listenerCount('unhandledRejection'),
});
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

// The model's WebAssembly runtime installs process listeners that rethrow every uncaught error
// and unhandled rejection: a process that merely imports this package must not inherit them.
describe('the local model leaves the process-level error handlers alone', () => {
  it('importing the package and creating its default generator adds no listener', async () => {
    const before = counts();
    const { createDefaultEmbeddingGenerator } = await import('../src/index.js');
    const generator = createDefaultEmbeddingGenerator();
    closers.push(async () => generator.close?.());
    expect(counts()).toEqual(before);
  });

  it('embedding a text in the worker threads adds no listener to the main thread', async () => {
    const { UniversalSentenceEncoderGenerator } = await import('../src/index.js');
    const before = counts();
    const generator = new UniversalSentenceEncoderGenerator({ workers: 1 });
    closers.push(() => generator.close());
    const [vector] = await generator.generateEmbeddings(['The cat sat on the mat.']);
    expect(vector).toHaveLength(512);
    expect(counts()).toEqual(before);
  });

  it('embedding on the calling thread (workers: 0) adds no listener either', async () => {
    const { UniversalSentenceEncoderGenerator } = await import('../src/index.js');
    const before = counts();
    const generator = new UniversalSentenceEncoderGenerator({ workers: 0 });
    const [vector] = await generator.generateEmbeddings(['The cat sat on the mat.']);
    expect(vector).toHaveLength(512);
    expect(counts()).toEqual(before);
  });
});
