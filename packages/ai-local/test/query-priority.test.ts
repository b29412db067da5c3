import { describe, expect, it } from 'vitest';
import { USE_DIMENSIONS, UniversalSentenceEncoderGenerator, type JobPriority } from '../src/index.js';

/** The generator's pool, replaced by a recorder: no model is loaded. */
function recordPriorities(generator: UniversalSentenceEncoderGenerator): Array<{ texts: number; priority: JobPriority }> {
  const calls: Array<{ texts: number; priority: JobPriority }> = [];
  const pool = {
    run: async (texts: string[], _transfer: ArrayBuffer[], _signal: AbortSignal | undefined, priority: JobPriority) => {
      calls.push({ texts: texts.length, priority });
      return new Float32Array(texts.length * USE_DIMENSIONS);
    },
  };
  Object.assign(generator, { pool });
  return calls;
}

describe('UniversalSentenceEncoderGenerator: queries go ahead of ingestion', () => {
  it('a call that says it is a query runs at high priority, ingestion batches at normal', async () => {
    const generator = new UniversalSentenceEncoderGenerator({ workers: 2, maxTextsPerJob: 4 });
    const calls = recordPriorities(generator);
    await generator.generateEmbeddings(['what is a comet?', 'a second text'], undefined, { purpose: 'query' });
    await generator.generateEmbeddings(
      Array.from({ length: 10 }, (_, i) => `chunk ${i}`),
      undefined,
      { purpose: 'document' },
    );
    expect(calls).toEqual([
      { texts: 1, priority: 'high' },
      { texts: 1, priority: 'high' },
      { texts: 4, priority: 'normal' },
      { texts: 4, priority: 'normal' },
      { texts: 2, priority: 'normal' },
    ]);
  });

  it('with no purpose stated a call is ingestion, even of one text (a one-chunk document, a last partial batch)', async () => {
    const generator = new UniversalSentenceEncoderGenerator({ workers: 1 });
    const calls = recordPriorities(generator);
    await generator.generateEmbeddings(['a one-chunk document']);
    await generator.generateEmbeddings(['one chunk', 'another chunk']);
    await generator.generateEmbeddings(['comet'], undefined, { purpose: 'query' });
    expect(calls.map((c) => c.priority)).toEqual(['normal', 'normal', 'high']);
  });

  it('queryPriority: false runs queries at normal priority too (arrival order)', async () => {
    const generator = new UniversalSentenceEncoderGenerator({ workers: 1, queryPriority: false });
    const calls = recordPriorities(generator);
    await generator.generateEmbeddings(['comet'], undefined, { purpose: 'query' });
    expect(calls.map((c) => c.priority)).toEqual(['normal']);
  });
});
