import { KmError, type KmErrorCode } from '@km/core';
import { isNetworkErrorCode, isRetryableHttpStatus } from '@km/core/connector';

/** Connector name carried by every error of this package. */
export const CONNECTOR = 'ollama';

/** HTTP statuses worth retrying: timeouts, conflicts, rate limits and server errors (core's `isRetryableHttpStatus`). */
export const isRetryableStatus: (status: number) => boolean = isRetryableHttpStatus;

/** A KmError with the HTTP status of the failed request, when Ollama answered. */
export class OllamaRequestError extends KmError {
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;

  constructor(
    code: KmErrorCode,
    message: string,
    options: { status?: number | undefined; retryAfterMs?: number | undefined; transient: boolean; cause?: unknown },
  ) {
    super(code, message, { connector: CONNECTOR, transient: options.transient, cause: options.cause, retryAfterMs: options.retryAfterMs });
    this.name = 'OllamaRequestError';
    this.status = options.status;
  }
}

/** What a failed request was, for messages. */
export interface RequestContext {
  /** e.g. `chat` or `embed`. */
  what: string;
  /** The server, e.g. `http://127.0.0.1:11434`. */
  host: string;
  /** The model the request named. */
  model: string;
  signal?: AbortSignal | undefined;
  /** The server's Retry-After, when it sent one. */
  retryAfterMs?: number | undefined;
}

/** The `ResponseError` of the `ollama` client (not exported by it): the server answered with an error status. */
function responseStatus(e: unknown): number | undefined {
  if (e instanceof Error && e.name === 'ResponseError') {
    const status = (e as Error & { status_code?: unknown }).status_code;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

/** The socket error code behind a failed fetch (`TypeError: fetch failed` with a `cause`), if any. */
function networkCode(e: unknown): string | undefined {
  for (let cause = e, depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (isNetworkErrorCode(code)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

function codeOf(status: number, message: string): KmErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_configured';
  if (/exceeds? (the )?(maximum )?context length|input length exceeds|too long/i.test(message)) return 'input_too_long';
  if (status === 400 || status === 422) return 'invalid_argument';
  return isRetryableStatus(status) ? 'transient' : 'upstream_error';
}

/** A 404 of Ollama's API: the model is not on the server (`model "x" not found, try pulling it first`), or the host is not Ollama. */
function notFoundMessage(context: RequestContext, serverMessage: string): string {
  if (/model .*not found|not found.*pull/i.test(serverMessage)) {
    return `model "${context.model}" is not on the Ollama server at ${context.host}: run \`ollama pull ${context.model}\` there (server said: ${serverMessage})`;
  }
  return `${context.what}: HTTP 404 ${serverMessage} (is ${context.host} an Ollama server?)`;
}

/**
 * Maps whatever the `ollama` client or fetch threw to a KmError: `aborted` for an abort;
 * transient for an unreachable server, a dropped connection, 408, 409, 429 and 5xx; a model
 * that is not pulled is `not_configured` with the `ollama pull` command to run; other answers
 * are fatal (`invalid_argument`, `input_too_long`, `unauthorized`, `upstream_error`).
 */
export function toKmError(e: unknown, context: RequestContext): KmError {
  if (e instanceof KmError) return e;
  const { what, host, signal } = context;
  if (signal?.aborted || (e instanceof Error && e.name === 'AbortError')) {
    return new KmError('aborted', `${what}: aborted`, { connector: CONNECTOR, cause: e });
  }
  const status = responseStatus(e);
  if (status !== undefined) {
    const serverMessage = (e as Error).message;
    const code = codeOf(status, serverMessage);
    const message = status === 404 ? notFoundMessage(context, serverMessage) : `${what}: HTTP ${status} ${serverMessage}`;
    return new OllamaRequestError(code, message, {
      status,
      retryAfterMs: context.retryAfterMs,
      transient: isRetryableStatus(status),
      cause: e,
    });
  }
  const network = networkCode(e);
  if (network || (e instanceof TypeError && /fetch failed|terminated|network/i.test(e.message))) {
    const reason = network ?? (e as Error).message;
    return new OllamaRequestError('transient', `${what}: cannot reach Ollama at ${host} (${reason}); is \`ollama serve\` running there?`, {
      transient: true,
      cause: e,
    });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new KmError('upstream_error', `${what}: ${message}`, { connector: CONNECTOR, cause: e });
}
