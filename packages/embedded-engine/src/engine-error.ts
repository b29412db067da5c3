/** Machine-readable codes of {@link EngineError}; the same strings as `@km/core`'s error codes. */
export type EngineErrorCode =
  | 'invalid_argument'
  | 'index_not_found'
  | 'vector_size_mismatch'
  | 'content_too_large'
  | 'storage_corrupt'
  | 'aborted'
  | 'transient';

/** Options of {@link EngineError}. */
export interface EngineErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
  /** True when retrying the same operation later may succeed. @default false */
  transient?: boolean;
  /**
   * True when the error is about the store itself (its files, its settings, one of its
   * indexes) rather than a part of the engine (a scan thread): `@km/core` then names its
   * store (`[simple-vector-db]`) in the message it reports. @default false
   */
  ofStore?: boolean;
}

/** Marks every EngineError, whichever copy of `@km/embedded-engine` made it. */
const ENGINE_ERROR_BRAND = Symbol.for('@km/embedded-engine.EngineError');

/**
 * The one error class of the engine: a `code` to branch on and a plain message.
 *
 * ```ts
 * try { await index.search(vector); }
 * catch (e) { if (isEngineError(e) && e.code === 'vector_size_mismatch') ... }
 * ```
 */
export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly transient: boolean;
  /** See {@link EngineErrorOptions.ofStore}. */
  readonly ofStore: boolean;

  constructor(code: EngineErrorCode, message: string, options: EngineErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.transient = options.transient ?? false;
    this.ofStore = options.ofStore ?? false;
    Object.defineProperty(this, ENGINE_ERROR_BRAND, { value: true });
  }
}

/** True when `error` is an {@link EngineError} (of any copy of the package). */
export function isEngineError(error: unknown): error is EngineError {
  return typeof error === 'object' && error !== null && ENGINE_ERROR_BRAND in error;
}
