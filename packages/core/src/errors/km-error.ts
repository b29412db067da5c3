/**
 * Machine-readable error codes. Tests and callers branch on `code`, never on the message.
 */
export type KmErrorCode =
  | 'invalid_argument'
  | 'invalid_index_name'
  | 'invalid_document_id'
  | 'invalid_file_name'
  | 'invalid_tag'
  | 'invalid_filter'
  | 'unsupported_filter'
  | 'index_not_found'
  | 'collection_not_found'
  | 'document_not_found'
  | 'document_busy'
  | 'sync_busy'
  | 'file_not_found'
  | 'vector_size_mismatch'
  | 'empty_content'
  | 'content_too_large'
  | 'unsupported_content'
  | 'storage_corrupt'
  | 'write_conflict'
  | 'not_configured'
  | 'unsupported_operation'
  | 'pipeline_failed'
  | 'handler_not_found'
  | 'aborted'
  | 'transient'
  | 'unauthorized'
  | 'rate_limited'
  | 'input_too_long'
  | 'upstream_error';

export interface KmErrorOptions {
  /** Name of the connector that raised the error, e.g. `qdrant`; omitted for core. */
  connector?: string;
  /** The underlying error, if any. */
  cause?: unknown;
  /** True when retrying the same operation later may succeed. @default false */
  transient?: boolean;
  /** How long the server asked to wait before a retry (its Retry-After), in ms. */
  retryAfterMs?: number | undefined;
}

/**
 * The one error family of km. Messages read `[km] [connector] message`.
 *
 * ```ts
 * try { await memory.search('x', { index: 'bad index*' }); }
 * catch (e) { if (e instanceof KmError && e.code === 'invalid_index_name') ... }
 * ```
 */
export class KmError extends Error {
  readonly code: KmErrorCode;
  readonly connector: string | undefined;
  readonly transient: boolean;
  /** How long the server asked to wait before a retry, in ms; retries honour it (see `BackoffPolicy`). */
  readonly retryAfterMs: number | undefined;

  constructor(code: KmErrorCode, message: string, options: KmErrorOptions = {}) {
    super(`[km]${options.connector ? ` [${options.connector}]` : ''} ${message}`, { cause: options.cause });
    this.name = 'KmError';
    this.code = code;
    this.connector = options.connector;
    this.transient = options.transient ?? false;
    this.retryAfterMs = options.retryAfterMs;
    Object.defineProperty(this, KM_ERROR_BRAND, { value: true });
  }

  /**
   * `instanceof` also holds for errors of another copy of `@km/core` (a plugin installed with
   * its own), matched by a global brand and the class name in the error's prototype chain.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== 'object' || value === null || !(KM_ERROR_BRAND in value)) return false;
    for (
      let proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
      proto;
      proto = Object.getPrototypeOf(proto)
    ) {
      if (proto.constructor?.name === this.name) return true;
    }
    return false;
  }
}

/** Marks every KmError, whichever copy of `@km/core` made it. */
const KM_ERROR_BRAND = Symbol.for('@km/core.KmError');

/** Raised when an operation needs an index that does not exist. */
export class IndexNotFoundError extends KmError {
  readonly index: string;
  constructor(index: string, options: KmErrorOptions = {}) {
    super('index_not_found', `index "${index}" does not exist`, options);
    this.name = 'IndexNotFoundError';
    this.index = index;
  }
}

/** Raised for a caller's mistake: bad id, index name, tag, filter or argument. */
export class InvalidInputError extends KmError {
  constructor(code: KmErrorCode, message: string, options: KmErrorOptions = {}) {
    super(code, message, options);
    this.name = 'InvalidInputError';
  }
}

/** True when `e` is a KmError with the given code. */
export function isKmError(e: unknown, code?: KmErrorCode): e is KmError {
  return e instanceof KmError && (code === undefined || e.code === code);
}
