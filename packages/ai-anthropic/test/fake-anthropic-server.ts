import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: MessagesBody;
  /** `performance.now()` when the request arrived. */
  at: number;
}

/** The fields of a Messages API request body the fake reads or the tests check. */
export interface MessagesBody {
  model?: unknown;
  max_tokens?: unknown;
  messages?: unknown;
  system?: unknown;
  temperature?: unknown;
  top_p?: unknown;
  stop_sequences?: unknown;
  stream?: unknown;
  [field: string]: unknown;
}

/** A canned answer given instead of the normal one, to one request. */
export type ScriptedFailure =
  /** An HTTP error with Anthropic's error body `{ type: 'error', error: { type, message } }`. */
  | { status: number; type?: string; message?: string; headers?: Record<string, string> }
  /** A stream (HTTP 200) that sends `errorEventAfter` text deltas, then an `event: error`. */
  | { errorEventAfter: number; type: string; message?: string }
  /** A stream (HTTP 200) whose connection drops after `dropAfter` text deltas. */
  | { dropAfter: number };

/** Error types of Anthropic's API by HTTP status (docs: "Errors"). */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/**
 * A local HTTP server speaking Anthropic's Messages API wire format (`POST /v1/messages`): the
 * API key (`x-api-key`, or `Authorization: Bearer`, which the SDK sends) and `anthropic-version`
 * headers are required; requests are checked as the API documents (model, max_tokens,
 * messages, sampling ranges); answers are a JSON message or, with `stream: true`, server-sent
 * events (`message_start`, `content_block_start`, `ping`, `content_block_delta` with
 * `text_delta`, `content_block_stop`, `message_delta` with stop reason and usage,
 * `message_stop`). Errors are `{ type: 'error', error: { type, message } }`. It stands in for
 * the remote API, which the test machines cannot reach; the real SDK talks to it over HTTP.
 */
export class FakeAnthropicServer {
  readonly apiKey = 'sk-ant-test';
  readonly requests: RecordedRequest[] = [];
  /** Failures answered, in order, before normal responses resume. */
  readonly failures: ScriptedFailure[] = [];
  /** Models it serves; any other gets a 404 `not_found_error`. */
  readonly models = new Set(['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-opus-4-5', 'claude-opus-4-8']);
  /** Models released after Opus 4.6, which refuse `temperature` and `top_p` (Anthropic's parameter deprecations). */
  readonly modelsWithoutSampling = new Set(['claude-opus-4-8']);
  /** The answer, streamed in pieces of `chunkSize` characters (a "token" each, for usage). */
  answer = 'hello from the fake model';
  chunkSize = 5;
  /** Wait between two text deltas, in ms. */
  chunkDelayMs = 0;
  /** Destroy the socket after this many text deltas (a dropped connection). */
  breakStreamAfter: number | undefined;
  /** Streams whose client went away before `message_stop` was written. */
  streamsClosedEarly = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Back to a clean state between tests. */
  reset(): void {
    this.requests.length = 0;
    this.failures.length = 0;
    this.answer = 'hello from the fake model';
    this.chunkSize = 5;
    this.chunkDelayMs = 0;
    this.breakStreamAfter = undefined;
    this.streamsClosedEarly = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://localhost');
    let body: MessagesBody;
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesBody) : {};
    } catch {
      return error(res, 400, 'invalid_request_error', 'The request body is not valid JSON.');
    }
    this.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body, at: performance.now() });
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') return error(res, 404, 'not_found_error', `Not found: ${url.pathname}`);
    const key = header(req, 'x-api-key') ?? header(req, 'authorization')?.replace(/^Bearer /, '');
    if (key !== this.apiKey) return error(res, 401, 'authentication_error', 'invalid x-api-key');
    if (!header(req, 'anthropic-version')) return error(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    const failure = this.failures.shift();
    if (failure && 'status' in failure) {
      const type = failure.type ?? ERROR_TYPES[failure.status] ?? 'api_error';
      return error(res, failure.status, type, failure.message ?? `scripted ${failure.status}`, failure.headers);
    }
    const invalid = checkBody(body);
    if (invalid) return error(res, 400, 'invalid_request_error', invalid);
    if (!this.models.has(body.model as string)) return error(res, 404, 'not_found_error', `model: ${String(body.model)}`);
    for (const name of ['temperature', 'top_p'] as const) {
      if (body[name] !== undefined && this.modelsWithoutSampling.has(body.model as string)) {
        return error(res, 400, 'invalid_request_error', `\`${name}\` is deprecated for this model.`);
      }
    }

    const { pieces, stopReason, stopSequence } = this.reply(body);
    const inputTokens = JSON.stringify([body.system ?? '', body.messages]).split(/\s+/).length;
    const message = {
      id: 'msg_fake_1',
      type: 'message',
      role: 'assistant',
      model: body.model,
      stop_sequence: null,
      stop_reason: null,
    };
    if (body.stream !== true) {
      return json(res, 200, {
        ...message,
        content: [{ type: 'text', text: pieces.join('') }],
        stop_reason: stopReason,
        stop_sequence: stopSequence,
        usage: { input_tokens: inputTokens, output_tokens: pieces.length },
      });
    }
    await this.stream(res, message, pieces, { stopReason, stopSequence, inputTokens }, failure);
  }

  /** The answer's pieces, cut at a stop sequence or at `max_tokens` pieces. */
  private reply(body: MessagesBody): { pieces: string[]; stopReason: string; stopSequence: string | null } {
    let text = this.answer;
    let stopReason = 'end_turn';
    let stopSequence: string | null = null;
    for (const stop of (body.stop_sequences as string[] | undefined) ?? []) {
      const at = text.indexOf(stop);
      if (at >= 0) {
        text = text.slice(0, at);
        stopReason = 'stop_sequence';
        stopSequence = stop;
      }
    }
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += this.chunkSize) pieces.push(text.slice(i, i + this.chunkSize));
    if (pieces.length > (body.max_tokens as number)) {
      pieces.length = body.max_tokens as number;
      stopReason = 'max_tokens';
      stopSequence = null;
    }
    return { pieces, stopReason, stopSequence };
  }

  private async stream(
    res: ServerResponse,
    message: Record<string, unknown>,
    pieces: string[],
    end: { stopReason: string; stopSequence: string | null; inputTokens: number },
    failure: ScriptedFailure | undefined,
  ): Promise<void> {
    let finished = false;
    res.on('close', () => {
      if (!finished) this.streamsClosedEarly++;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_fake_1' });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', {
      type: 'message_start',
      message: { ...message, content: [], usage: { input_tokens: end.inputTokens, output_tokens: 1 } },
    });
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('ping', { type: 'ping' });
    for (const [i, piece] of pieces.entries()) {
      if (failure && 'errorEventAfter' in failure && i >= failure.errorEventAfter) {
        send('error', { type: 'error', error: { type: failure.type, message: failure.message ?? failure.type } });
        finished = true;
        res.end();
        return;
      }
      const dropAfter = failure && 'dropAfter' in failure ? failure.dropAfter : this.breakStreamAfter;
      if (dropAfter !== undefined && i >= dropAfter) {
        res.socket?.destroy();
        return;
      }
      if (res.destroyed) return;
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
      await new Promise((r) => (this.chunkDelayMs ? setTimeout(r, this.chunkDelayMs) : setImmediate(r)));
    }
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: end.stopReason, stop_sequence: end.stopSequence },
      usage: { output_tokens: pieces.length },
    });
    send('message_stop', { type: 'message_stop' });
    finished = true;
    res.end();
  }
}

/** What the API says about a request body it refuses, or undefined when it is valid. */
function checkBody(body: MessagesBody): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system))
    return 'system: Input should be a valid string';
  for (const name of ['temperature', 'top_p'] as const) {
    const v = body[name];
    if (v !== undefined && (typeof v !== 'number' || v < 0 || v > 1)) return `${name}: Input should be less than or equal to 1`;
  }
  if (body.temperature !== undefined && body.top_p !== undefined) {
    return '`temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  }
  if (body.stop_sequences !== undefined && !Array.isArray(body.stop_sequences)) return 'stop_sequences: Input should be a valid list';
  return undefined;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake_1', ...headers });
  res.end(JSON.stringify(body));
}

function error(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  json(res, status, { type: 'error', error: { type, message } }, headers);
}

/** Starts a fake server for the current test file; `url()` is its base URL (the SDK adds `/v1/messages`). */
export function useFakeAnthropicServer(): { server: FakeAnthropicServer; url: () => string } {
  const server = new FakeAnthropicServer();
  let baseURL = '';
  beforeAll(async () => {
    baseURL = await server.start();
  });
  afterAll(() => server.stop());
  return { server, url: () => baseURL };
}
