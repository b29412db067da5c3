import { CL100KTokenizer, type ITextEmbeddingGenerator } from '../src/index.js';

/** A generator call seen by {@link GatedEmbeddingGenerator}. */
export interface SeenCall {
  texts: string[];
  signal: AbortSignal | undefined;
  purpose: string | undefined;
}

/**
 * A counting fake model: records every call, answers `[text.length, index-in-call, 1]` per text
 * once the test opens the gate (or at once when `gated` is false), and fails calls with
 * `failWith` while it is set. A call whose signal aborts rejects with the signal's reason.
 */
export class GatedEmbeddingGenerator implements ITextEmbeddingGenerator {
  readonly maxTokens = 8192;
  readonly dimensions = 3;
  readonly modelName = 'test/gated';
  readonly tokenizer = new CL100KTokenizer();
  readonly calls: SeenCall[] = [];
  failWith: Error | undefined;
  private waiting: Array<() => void> = [];

  readonly maxBatchSize: number | undefined;

  /** `maxBatchSize: null` states none. */
  constructor(
    maxBatchSize: number | null = 8,
    private readonly gated = true,
  ) {
    this.maxBatchSize = maxBatchSize ?? undefined;
  }

  /** Texts sent to the model, over all calls. */
  get textsSent(): number {
    return this.calls.reduce((n, c) => n + c.texts.length, 0);
  }

  /** Lets every waiting call answer. */
  open(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  async generateEmbeddings(texts: string[], signal?: AbortSignal, options?: { purpose?: string }): Promise<Float32Array[]> {
    this.calls.push({ texts: [...texts], signal, purpose: options?.purpose });
    const failure = this.failWith;
    if (this.gated) {
      await new Promise<void>((resolve, reject) => {
        this.waiting.push(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    if (failure) throw failure;
    return texts.map((t, i) => new Float32Array([t.length, i, 1]));
  }
}

/** A promise's outcome once it settles, without an unhandled rejection meanwhile. */
export function outcome<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/** Lets queued immediates (and the microtasks before them) run. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
