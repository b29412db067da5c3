import { CommanderError } from 'commander';
import { type KmErrorCode, isKmError } from '@km/core';
import { isNetworkErrorCode } from '@km/core/connector';

/** The exit codes of `km` (documented in the README). */
export const EXIT_CODES = {
  ok: 0,
  /** Anything else: a bug, a failing backend or model, a pipeline error. */
  error: 1,
  /** Bad usage or input: an unknown option, an invalid argument, configuration or file, a document that failed to import. */
  usage: 2,
  /** What was asked for does not exist: a document, an index, a file. */
  notFound: 3,
  /** The service or a backend cannot be reached, or it refused the access key. */
  unreachable: 4,
  /** `km serve` cannot listen: the port is in use, or the address is not allowed or not available. */
  cannotListen: 5,
  /** Stopped by Ctrl-C (SIGINT) before it was done: `km sync`. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** An error of the command line itself, with the message to print and the exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

const USAGE_CODES = new Set<KmErrorCode>([
  'invalid_argument',
  'invalid_index_name',
  'invalid_document_id',
  'invalid_file_name',
  'invalid_tag',
  'invalid_filter',
  'unsupported_filter',
  'empty_content',
  'content_too_large',
  'unsupported_content',
  'input_too_long',
  'not_configured',
  'vector_size_mismatch',
]);
const NOT_FOUND_CODES = new Set<KmErrorCode>(['index_not_found', 'collection_not_found', 'document_not_found', 'file_not_found']);
const UNREACHABLE_CODES = new Set<KmErrorCode>(['unauthorized', 'transient']);

/** The exit code for an error that ended a command. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (isKmError(error)) {
    if (USAGE_CODES.has(error.code)) return EXIT_CODES.usage;
    if (NOT_FOUND_CODES.has(error.code)) return EXIT_CODES.notFound;
    if (UNREACHABLE_CODES.has(error.code)) return EXIT_CODES.unreachable;
    return EXIT_CODES.error;
  }
  const systemCode = (error as { code?: unknown })?.code;
  if (systemCode === 'ENOENT') return EXIT_CODES.notFound;
  if (isNetworkErrorCode(systemCode)) return EXIT_CODES.unreachable;
  return EXIT_CODES.error;
}

/** The one line that says what went wrong, without the `[km]` prefix of core errors or a stack trace. */
export function messageOf(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const text = raw
    .replace(/^\[km\]\s*/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return text || (error instanceof Error ? error.name : 'unknown error');
}

/**
 * Prints an error the way a user can act on, on one line of stderr, and returns the exit code.
 * `KM_DEBUG=1` adds the stack trace.
 */
export function reportError(error: unknown, err: NodeJS.WritableStream = process.stderr, env: NodeJS.ProcessEnv = process.env): number {
  if (error instanceof CommanderError && error.exitCode === 0) return EXIT_CODES.ok;
  const code = exitCodeOf(error);
  // A CliError without a message was reported already (commander printed the help).
  if (error instanceof CliError && error.message === '') return code;
  err.write(`km: ${messageOf(error)}\n`);
  if (env.KM_DEBUG && error instanceof Error && error.stack) err.write(`${error.stack}\n`);
  return code;
}

/**
 * A listening error of `km serve` as a CliError naming the way out (`--port`/`KM_PORT`,
 * `--host`/`KM_HOST`); other errors unchanged.
 */
export function listenError(error: unknown, port: number | undefined, host: string | undefined): unknown {
  const e = error as { code?: unknown; port?: unknown; address?: unknown };
  const at = typeof e?.port === 'number' ? e.port : port;
  const address = typeof e?.address === 'string' ? e.address : host;
  switch (e?.code) {
    case 'EADDRINUSE':
      return new CliError(`port ${at} is in use: choose another with --port or KM_PORT`, EXIT_CODES.cannotListen, { cause: error });
    case 'EACCES':
      return new CliError(`not allowed to listen on port ${at}: choose one above 1023 with --port or KM_PORT`, EXIT_CODES.cannotListen, {
        cause: error,
      });
    case 'EADDRNOTAVAIL':
      return new CliError(
        `cannot listen on ${address ?? 'this address'}: it is not an address of this machine; choose another with --host or KM_HOST`,
        EXIT_CODES.cannotListen,
        { cause: error },
      );
    default:
      return error;
  }
}
