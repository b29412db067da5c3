import { describe, expect, it } from 'vitest';
import { QueryEmbeddingBatcher } from '../src/ai/query-embedding-batcher.js';
import { QueryEmbeddingCache } from '../src/ai/query-embedding-cache.js';
import { CL100KTokenizer, KmError, type ITextEmbeddingGenerator } from '../src/index.js';
import { nextTurn, outcome } from './query-embedding-fakes.js';

/**
 * A fake model answering `[text.length, 1]` per text, except that `answer` may replace what a
 * call returns and `refuse` may fail a call; records the texts of every call.
 */
class ScriptedModel implements ITextEmbeddingGenerator {
  readonly maxTokens = 8192;
  readonly dimensions = 2;
  readonly maxBatchSize = 8;
  readonly modelName = 'test/scripted';
  readonly tokenizer = new CL100KTokenizer();
  readonly calls: string[][] = [];

  constructor(
    private readonly answer: (texts: string[], vectors: Float32Array[]) => unknown[] = (_, v) => v,
    private readonly refuse: (texts: string[]) => Error | undefined = () => undefined,
  ) {}

  async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    await nextTurn(); // answers in a later turn: callers may abort meanwhile
    signal?.throwIfAborted();
    const failure = this.refuse(texts);
    if (failure) throw failure;
    return this.answer(
      texts,
      texts.map((t) => new Float32Array([t.length, 1])),
    ) as Float32Array[];
  }
}

describe('QueryEmbeddingBatcher: malformed answers', () => {
  it('rejects the caller of a missing vector with upstream_error, settles every caller and leaves nothing pending', async () => {
    // The model leaves out the vector of 'bad' (returns undefined in its place).
    const model = new ScriptedModel((texts, vectors) => vectors.map((v, i) => (texts[i] === 'bad' ? undefined : v)));
    const batcher = new QueryEmbeddingBatcher(model);
    const results = await Promise.all([outcome(batcher.embed('good', 'good')), outcome(batcher.embed('bad', 'bad'))]);
    expect([...(results[0]!.value ?? [])]).toEqual([4, 1]);
    expect(results[1]!.error).toBeInstanceOf(KmError);
    expect((results[1]!.error as KmError).code).toBe('upstream_error');
    expect((results[1]!.error as KmError).message).toContain('test/scripted');
    expect(batcher.pendingCount).toBe(0);
    // A later caller of the same text does not join a stale job: it gets its own call and outcome.
    const again = await outcome(batcher.embed('bad', 'bad'));
    expect((again.error as KmError).code).toBe('upstream_error');
    expect(model.calls.at(-1)).toEqual(['bad']);
  });

  it('refuses empty vectors and non-numeric entries, and accepts number arrays', async () => {
    const answers: Record<string, unknown> = { empty: new Float32Array(0), text: 'abc', numbers: [1, 2] };
    const model = new ScriptedModel((texts, vectors) => vectors.map((v, i) => answers[texts[i]!] ?? v));
    const batcher = new QueryEmbeddingBatcher(model);
    const [empty, text, numbers] = await Promise.all(['empty', 'text', 'numbers'].map((t) => outcome(batcher.embed(t, t))));
    expect((empty!.error as KmError).code).toBe('upstream_error');
    expect((text!.error as KmError).code).toBe('upstream_error');
    expect(numbers!.value).toBeInstanceOf(Float32Array);
    expect([...numbers!.value!]).toEqual([1, 2]);
    expect(batcher.pendingCount).toBe(0);
  });

  it('rejects the callers whose vectors onVector failed on instead of leaving them pending', async () => {
    const model = new ScriptedModel();
    const failure = new Error('cache full');
    const batcher = new QueryEmbeddingBatcher(model, (key) => {
      if (key === 'b') throw failure;
    });
    const results = await Promise.all(['a', 'b', 'c'].map((t) => outcome(batcher.embed(t, t))));
    expect(results[0]!.value?.[0]).toBe(1);
    expect(results[1]!.error).toBe(failure);
    expect(results[2]!.error).toBe(failure);
    expect(batcher.pendingCount).toBe(0);
  });
});

describe('QueryEmbeddingBatcher: a failed batch', () => {
  const tooLong = (texts: string[]) => (texts.some((t) => t.length > 10) ? new Error('input too long') : undefined);

  it('retries each text of a failed batch alone, so one bad query does not fail the others', async () => {
    const model = new ScriptedModel(undefined, tooLong);
    const cache = new QueryEmbeddingCache(model);
    const long = 'x'.repeat(50);
    const [short, bad] = await Promise.all([outcome(cache.embed('short')), outcome(cache.embed(long))]);
    expect([...(short.value ?? [])]).toEqual([5, 1]);
    expect((bad.error as Error).message).toBe('input too long');
    expect(model.calls).toEqual([['short', long], ['short'], [long]]);
    // The good text was kept; the bad one was not.
    await cache.embed('short');
    expect(model.calls).toHaveLength(3);
  });

  it('does not retry a single text, nor a batch aborted because every caller left', async () => {
    const model = new ScriptedModel(undefined, tooLong);
    const batcher = new QueryEmbeddingBatcher(model);
    const single = await outcome(batcher.embed('x'.repeat(20), 'x'.repeat(20)));
    expect((single.error as Error).message).toBe('input too long');
    expect(model.calls).toHaveLength(1);

    const [c1, c2] = [new AbortController(), new AbortController()];
    const r1 = outcome(batcher.embed('one', 'one', c1.signal));
    const r2 = outcome(batcher.embed('two', 'two', c2.signal));
    await nextTurn(); // the batch is sent
    c1.abort();
    c2.abort();
    await Promise.all([r1, r2]);
    await nextTurn();
    expect(model.calls.slice(1)).toEqual([['one', 'two']]);
    expect(batcher.pendingCount).toBe(0);
  });

  it('retries only the texts that still have a caller', async () => {
    const model = new ScriptedModel(undefined, tooLong);
    const batcher = new QueryEmbeddingBatcher(model);
    const controller = new AbortController();
    const long = 'y'.repeat(30);
    const gone = outcome(batcher.embed('gone', 'gone', controller.signal));
    const kept = outcome(batcher.embed('kept', 'kept'));
    const bad = outcome(batcher.embed(long, long));
    await nextTurn(); // the batch is sent
    controller.abort();
    expect((await gone).error).toBe(controller.signal.reason);
    expect((await kept).value?.[0]).toBe(4);
    expect(((await bad).error as Error).message).toBe('input too long');
    expect(model.calls).toEqual([['gone', 'kept', long], ['kept'], [long]]);
    expect(batcher.pendingCount).toBe(0);
  });
});
