import { IndexNotFoundError, KmError } from '@km/core';

const CONNECTOR = 'mongodb';

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  codeName?: unknown;
  cause?: unknown;
  errorLabels?: unknown;
  writeErrors?: unknown;
}

/**
 * Raised at first use when the server has no vector search: a plain Community `mongod` without
 * `mongot`, or a version before `$vectorSearch`. km needs Atlas, the `mongodb/mongodb-atlas-local`
 * image, or MongoDB 8.2+ Community with `mongot` (code `not_configured`).
 */
export class VectorSearchUnavailableError extends KmError {
  constructor(cause: unknown) {
    super(
      'not_configured',
      'this MongoDB deployment has no vector search ($vectorSearch, search indexes): use MongoDB Atlas, the ' +
        'mongodb/mongodb-atlas-local image, or MongoDB 8.2+ Community with mongot' +
        ` (server said: ${messageOf(cause)})`,
      { connector: CONNECTOR, cause },
    );
    this.name = 'VectorSearchUnavailableError';
  }
}

function shape(error: unknown): ErrorShape {
  return error !== null && typeof error === 'object' ? (error as ErrorShape) : {};
}

/** The server's error code, if any. */
export function codeOf(error: unknown): number | undefined {
  const { code } = shape(error);
  return typeof code === 'number' ? code : undefined;
}

function messageOf(error: unknown): string {
  const { message, errmsg } = shape(error) as ErrorShape & { errmsg?: unknown };
  if (typeof message === 'string' && message) return message;
  return typeof errmsg === 'string' ? errmsg : String(error);
}

function hasLabel(error: unknown, ...labels: string[]): boolean {
  const { errorLabels } = shape(error);
  return Array.isArray(errorLabels) && errorLabels.some((l) => labels.includes(String(l)));
}

/**
 * True when the server says it cannot run search commands or stages (the list the MongoDB PHP
 * library's `SearchNotSupportedException` keeps, by server version).
 */
export function isVectorSearchUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  const message = messageOf(error);
  switch (code) {
    case 31082: // 8.x: "… requires additional configuration" (SearchNotEnabled)
    case 6047400: // 7.x: "$vectorSearch stage is only allowed on MongoDB Atlas"
    case 6047401: // 7.x: "$listSearchIndexes stage is only allowed on MongoDB Atlas"
    case 7501001: // sharded: "$search not enabled! …"
      return true;
    case 115: // 7.x Enterprise: "Search index commands are only supported with Atlas."
      return /search/i.test(message);
    case 59: // older: no such command
      return /no such (command|cmd): '?(createSearchIndexes|updateSearchIndex|dropSearchIndex)/.test(message);
    case 40324: // older: unknown stage
      return /Unrecognized pipeline stage name: '?\$(listSearchIndexes|search|searchMeta|vectorSearch)/.test(message);
    default:
      return false;
  }
}

/**
 * True when `createSearchIndexes` failed because the index exists: a concurrent creator made it
 * between km's listing and its request (code 68 IndexAlreadyExists, or a message saying so).
 */
export function isAlreadyExists(error: unknown): boolean {
  return codeOf(error) === 68 || /already exists/i.test(messageOf(error));
}

const AUTH_CODES = new Set([18, 13, 8000]); // AuthenticationFailed, Unauthorized, Atlas "bad auth"
const TRANSIENT_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
const TRANSIENT_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
]);

/**
 * Driver and server errors → km errors: no vector search is {@link VectorSearchUnavailableError},
 * a missing namespace IndexNotFoundError, failed authentication or a missing privilege
 * `unauthorized`, an ingress rate limit `rate_limited`, network trouble, server selection,
 * elections and time limits `transient`; the first write error of a bulk write is translated
 * the same way. An `AbortError` (the caller's signal) is returned untouched.
 */
export function translateMongoError(error: unknown, index: string): unknown {
  if (error instanceof KmError) return error;
  // An abort is the caller's, not the server's: the driver throws `signal.reason`, kept as it is.
  if (shape(error).name === 'AbortError') return error;
  const { writeErrors, cause } = shape(error);
  const firstWriteError = Array.isArray(writeErrors) ? writeErrors[0] : undefined;
  const source = codeOf(error) === undefined && firstWriteError ? firstWriteError : error;
  const code = codeOf(source);
  const message = messageOf(source);
  const name = String(shape(error).name ?? '');
  const options = { connector: CONNECTOR, cause: error };
  if (isVectorSearchUnavailable(source)) return new VectorSearchUnavailableError(error);
  if (code === 26) return new IndexNotFoundError(index, options);
  if ((code !== undefined && AUTH_CODES.has(code)) || AUTH_CODES.has(codeOf(cause) ?? -1)) {
    return new KmError('unauthorized', `MongoDB refused the credentials: ${message}`, options);
  }
  if (code === 462 || hasLabel(error, 'SystemOverloadedError')) {
    return new KmError('rate_limited', `MongoDB: ${message}`, { ...options, transient: true });
  }
  if (
    TRANSIENT_NAMES.has(name) ||
    (code !== undefined && TRANSIENT_CODES.has(code)) ||
    hasLabel(error, 'RetryableWriteError', 'TransientTransactionError', 'ResetPool', 'RetryableError')
  ) {
    return new KmError('transient', `MongoDB: ${message}`, { ...options, transient: true });
  }
  return new KmError('upstream_error', `MongoDB (${code ?? (name || 'no code')}): ${message}`, options);
}
