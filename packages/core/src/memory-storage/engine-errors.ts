import { isEngineError } from '@km/embedded-engine';
import { KmError } from '../errors/km-error.js';

/**
 * The KmError of an error of `@km/embedded-engine` (the same code, message and cause, named
 * after `connector` when it is about the store); any other error as it is.
 */
export function fromEngineError(error: unknown, connector: string): unknown {
  if (!isEngineError(error)) return error;
  const translated = new KmError(error.code, error.message, {
    connector: error.ofStore ? connector : undefined,
    cause: error.cause,
    transient: error.transient,
  });
  // Keep the frames of the line in the engine that threw, not those of this translation.
  const frames = error.stack?.indexOf('\n    at ') ?? -1;
  if (frames >= 0) translated.stack = `${translated.name}: ${translated.message}${error.stack!.slice(frames)}`;
  return translated;
}

/** Runs `call`, translating an engine error it throws (see {@link fromEngineError}). */
export async function engineCall<T>(connector: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromEngineError(error, connector);
  }
}
