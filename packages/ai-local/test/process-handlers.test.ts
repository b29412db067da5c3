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

  it('embedding on the calling thread (workers: 0) adds no listener either, and keeps the ones other code adds meanwhile', async () => {
    const { UniversalSentenceEncoderGenerator } = await import('../src/index.js');
    const before = counts();
    const generator = new UniversalSentenceEncoderGenerator({ workers: 0 });
    const embedding = generator.generateEmbeddings(['The cat sat on the mat.']);
    // The application installs its own handlers while the model loads.
    const onException = (error: Error) => void error;
    const onRejection = (reason: unknown) => void reason;
    process.on('uncaughtException', onException);
    process.on('unhandledRejection', onRejection);
    try {
      const [vector] = await embedding;
      expect(vector).toHaveLength(512);
      expect(process.listeners('uncaughtException')).toContain(onException);
      expect(process.listeners('unhandledRejection')).toContain(onRejection);
      expect(counts()).toEqual({ uncaughtException: before.uncaughtException + 1, unhandledRejection: before.unhandledRejection + 1 });
    } finally {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
    }
    expect(counts()).toEqual(before);
  });
});

describe('withoutRuntimeProcessListeners', () => {
  it('removes the rethrowing listeners the WebAssembly runtime installs, and no other', async () => {
    const { withoutRuntimeProcessListeners, isRuntimeRethrowListener } = await import('../src/use/use-model.js');
    const before = counts();
    // As Emscripten writes them (from @energetic-ai/core's bundle), and the same as arrows.
    const runtime = [
      [
        'uncaughtException',
        new Function('ExitStatus', 'return function(ex) {\n  if (!(ex instanceof ExitStatus)) {\n    throw ex;\n  }\n}')(class {}),
      ],
      ['unhandledRejection', new Function('return function(reason) {\n  throw reason;\n}')()],
      ['uncaughtException', new Function('ExitStatus', 'return (ex) => { if (!(ex instanceof ExitStatus)) throw ex; }')(class {})],
    ] as Array<['uncaughtException' | 'unhandledRejection', (...args: unknown[]) => void]>;
    const own = [
      ['uncaughtException', (error: Error) => void error],
      [
        'uncaughtException',
        function log(ex: unknown) {
          if (!(ex instanceof Error)) throw ex;
        },
      ],
      ['unhandledRejection', (reason: unknown) => void reason],
    ] as Array<['uncaughtException' | 'unhandledRejection', (...args: unknown[]) => void]>;
    for (const [event, listener] of runtime) expect(isRuntimeRethrowListener(event, listener)).toBe(true);
    for (const [event, listener] of own) expect(isRuntimeRethrowListener(event, listener)).toBe(false);
    try {
      await withoutRuntimeProcessListeners(async () => {
        for (const [event, listener] of [...runtime, ...own]) {
          await new Promise((resolve) => setImmediate(resolve));
          process.on(event, listener);
        }
      });
      const installed = (event: string): unknown[] => process.listeners(event as 'uncaughtException');
      for (const [event, listener] of own) expect(installed(event)).toContain(listener);
      for (const [event, listener] of runtime) expect(installed(event)).not.toContain(listener);
    } finally {
      for (const [event, listener] of [...runtime, ...own]) process.off(event, listener);
    }
    expect(counts()).toEqual(before);
  });
});
