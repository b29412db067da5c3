import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashingEmbeddingGenerator } from '@km/core';
import { afterAll, beforeAll } from 'vitest';
import type { AzureOpenAIConnection } from '../src/index.js';

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: RequestBody;
}

/** The fields of an OpenAI request body the fake reads or the tests check. */
export interface RequestBody {
  model?: string;
  input?: string | string[];
  dimensions?: number;
  encoding_format?: string;
  messages?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

/** A canned failure answered instead of the normal response. */
export interface ScriptedFailure {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A local HTTP server speaking the OpenAI wire format for the two endpoints km uses,
 * `/embeddings` and `/chat/completions` (streamed as server-sent events), at OpenAI's paths and
 * Azure's deployment paths. It stands in for the remote API, which the test machines cannot
 * reach; the real `openai` SDK talks to it over HTTP. Embeddings are feature-hashing vectors,
 * so related texts really are closer than unrelated ones.
 */
export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  /** Failures answered, in order, before normal responses resume. */
  readonly failures: ScriptedFailure[] = [];
  /** Text streamed by chat completions, split into chunks of `chunkSize` characters. */
  answer = 'hello from the fake model';
  chunkSize = 5;
  /** Break the chat stream after this many chunks (simulates a dropped connection). */
  breakStreamAfter: number | undefined;
  /** Delay before answering each request, in ms. */
  latencyMs = 0;
  /** Answer embedding items in reverse order (the client must sort by `index`). */
  shuffleEmbeddings = false;
  inFlight = 0;
  maxInFlight = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();

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

  /** Requests to one endpoint (`embeddings` or `chat/completions`). */
  requestsTo(endpoint: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path.endsWith(`/${endpoint}`));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      this.requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body });
      if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
      const failure = this.failures.shift();
      if (failure)
        return json(
          res,
          failure.status,
          failure.body ?? { error: { message: `scripted ${failure.status}`, type: 'server_error' } },
          failure.headers,
        );
      if (url.pathname.endsWith('/embeddings')) return this.embeddings(body, res);
      if (url.pathname.endsWith('/chat/completions')) return await this.chat(body, res);
      json(res, 404, { error: { message: `no route ${url.pathname}`, type: 'invalid_request_error' } });
    } finally {
      this.inFlight--;
    }
  }

  private embeddings(body: RequestBody, res: ServerResponse): void {
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > 2048 || inputs.some((i) => typeof i !== 'string' || i === '')) {
      return json(res, 400, { error: { message: "'$.input' is invalid", type: 'invalid_request_error', code: null } });
    }
    const generator = new HashingEmbeddingGenerator({ dimensions: body.dimensions ?? 64 });
    const data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(generator.embed(text)) }));
    if (this.shuffleEmbeddings) data.reverse();
    const tokens = inputs.reduce((n, t) => n + t.split(/\s+/).length, 0);
    json(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  private async chat(body: RequestBody, res: ServerResponse): Promise<void> {
    if (!body.stream) return json(res, 400, { error: { message: 'this fake only streams', type: 'invalid_request_error' } });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: body.model };
    const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    let sent = 0;
    for (let i = 0; i < this.answer.length; i += this.chunkSize) {
      if (this.breakStreamAfter !== undefined && sent >= this.breakStreamAfter) {
        res.socket?.destroy();
        return;
      }
      send({ ...base, choices: [{ index: 0, delta: { content: this.answer.slice(i, i + this.chunkSize) }, finish_reason: null }] });
      sent++;
      await new Promise((r) => setImmediate(r));
    }
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    if (body.stream_options?.include_usage) {
      const promptTokens = JSON.stringify(body.messages).split(/\s+/).length;
      send({ ...base, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: sent, total_tokens: promptTokens + sent } });
    }
    res.end('data: [DONE]\n\n');
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Starts a fake server for the current test file; `url()` is its OpenAI base URL (`.../v1`),
 * `azure(…)` an Azure OpenAI connection to it (the SDK adds `/openai/deployments/…` to the root).
 */
export function useFakeOpenAIServer(): {
  server: FakeOpenAIServer;
  url: () => string;
  azure: (connection: Omit<AzureOpenAIConnection, 'provider' | 'endpoint'>) => AzureOpenAIConnection;
} {
  const server = new FakeOpenAIServer();
  let baseURL = '';
  beforeAll(async () => {
    baseURL = `${await server.start()}/v1`;
  });
  afterAll(() => server.stop());
  return {
    server,
    url: () => baseURL,
    azure: (connection) => ({ provider: 'azure', endpoint: baseURL.replace('/v1', ''), ...connection }),
  };
}
