import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HashingEmbeddingGenerator } from '@km/core';
import { afterAll, beforeAll } from 'vitest';

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: RequestBody;
}

/** The fields of an Ollama request body the fake reads or the tests check. */
export interface RequestBody {
  model?: string;
  input?: string | string[];
  truncate?: boolean;
  dimensions?: number;
  messages?: Array<{ role: string; content: string }>;
  stream?: boolean;
  keep_alive?: string | number;
  options?: { num_ctx?: number; num_predict?: number; temperature?: number; top_p?: number; stop?: string[] };
  [field: string]: unknown;
}

/** A canned failure answered instead of the normal response. */
export interface ScriptedFailure {
  status: number;
  headers?: Record<string, string>;
  /** @default `{"error": "scripted <status>"}` */
  body?: unknown;
}

/** Ollama treats `llama3.2` and `llama3.2:latest` as one model. */
const withTag = (model: string) => (model.includes(':') ? model : `${model}:latest`);

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A local HTTP server speaking Ollama's native API for the two endpoints km uses, as its API
 * documentation describes them: `POST /api/chat`, streamed as NDJSON chunks
 * `{model, created_at, message: {role, content}, done: false}` and a final chunk with
 * `done: true`, `done_reason` and the counts (`prompt_eval_count`, `eval_count`, durations);
 * and `POST /api/embed` (`input` a string or a list) answering `{model, embeddings,
 * prompt_eval_count}`. An unknown model gets a 404 `{"error": "model \"x\" not found, try
 * pulling it first"}`, a chat model asked for embeddings (or the reverse) a 400, an input over
 * `num_ctx` without `truncate` a 400. Embeddings are feature-hashing vectors, so related texts
 * really are closer than unrelated ones. The real `ollama` client talks to it over HTTP.
 */
export class FakeOllamaServer {
  readonly requests: RecordedRequest[] = [];
  /** Failures answered, in order, before normal responses resume. */
  readonly failures: ScriptedFailure[] = [];
  /** Models "pulled" on this server, and what they do. */
  readonly models = new Map<string, 'chat' | 'embed'>([
    ['llama3.2:latest', 'chat'],
    ['qwen2.5:7b', 'chat'],
    ['nomic-embed-text:latest', 'embed'],
  ]);
  /** Text streamed by chat, one word (with its trailing space) per chunk. */
  answer = 'hello from the fake model';
  /** Break the chat stream after this many content chunks (a dropped connection). */
  breakStreamAfter: number | undefined;
  /** Break only the first this many chat streams; later ones complete. @default every one */
  breakStreams = Number.POSITIVE_INFINITY;
  /** Delay before each chat chunk and before an embed answer, in ms. */
  latencyMs = 0;
  /** Vector size when a request names no `dimensions`. */
  dimensions = 64;
  /** Set when a chat client closed its connection before the stream ended. */
  closedEarly = 0;
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

  /** Puts the server back to its first state between tests. */
  reset(): void {
    this.requests.length = 0;
    this.failures.length = 0;
    this.answer = 'hello from the fake model';
    this.breakStreamAfter = undefined;
    this.breakStreams = Number.POSITIVE_INFINITY;
    this.latencyMs = 0;
    this.closedEarly = 0;
  }

  /** Requests to one endpoint (`chat` or `embed`). */
  requestsTo(endpoint: 'chat' | 'embed'): RecordedRequest[] {
    return this.requests.filter((r) => r.path === `/api/${endpoint}`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    let body: RequestBody;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    } catch {
      return json(res, 400, { error: 'invalid character in request body' });
    }
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    const failure = this.failures.shift();
    if (failure) return json(res, failure.status, failure.body ?? { error: `scripted ${failure.status}` }, failure.headers);
    if (req.method !== 'POST' || (path !== '/api/chat' && path !== '/api/embed')) return text(res, 404, '404 page not found');
    const kind = this.models.get(withTag(body.model ?? ''));
    if (!body.model) return json(res, 400, { error: 'model is required' });
    if (!kind) return json(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
    if (path === '/api/embed') {
      if (kind !== 'embed') return json(res, 400, { error: `"${body.model}" does not support embeddings` });
      return this.embed(body, res);
    }
    if (kind !== 'chat') return json(res, 400, { error: `"${body.model}" does not support chat` });
    return this.chat(body, res);
  }

  private async embed(body: RequestBody, res: ServerResponse): Promise<void> {
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.some((i) => typeof i !== 'string')) {
      return json(res, 400, { error: 'invalid input type' });
    }
    const context = body.options?.num_ctx ?? 2048;
    if (body.truncate === false && inputs.some((i) => words(i) > context)) {
      return json(res, 400, { error: 'the input length exceeds the context length' });
    }
    if (this.latencyMs) await delay(this.latencyMs);
    const generator = new HashingEmbeddingGenerator({ dimensions: body.dimensions ?? this.dimensions });
    const embeddings = inputs.map((input) => Array.from(generator.embed(input)));
    const promptTokens = inputs.reduce((n, i) => n + Math.min(words(i), context), 0);
    json(res, 200, { model: body.model, embeddings, total_duration: 1_000_000, load_duration: 100_000, prompt_eval_count: promptTokens });
  }

  private async chat(body: RequestBody, res: ServerResponse): Promise<void> {
    const stream = body.stream ?? true;
    const model = body.model;
    const promptTokens = (body.messages ?? []).reduce((n, m) => n + words(m.content), 0);
    // The answer, cut at the first stop sequence, one word per chunk, at most num_predict chunks.
    let answer = this.answer;
    for (const stop of body.options?.stop ?? []) {
      const at = answer.indexOf(stop);
      if (at >= 0) answer = answer.slice(0, at);
    }
    const pieces = answer.match(/\S+\s*/g) ?? [];
    const limit = body.options?.num_predict ?? -1;
    const sent = limit >= 0 ? pieces.slice(0, limit) : pieces;
    const final = {
      model,
      created_at: new Date().toISOString(),
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: sent.length < pieces.length ? 'length' : 'stop',
      total_duration: 5_000_000,
      load_duration: 1_000_000,
      prompt_eval_count: promptTokens,
      prompt_eval_duration: 1_000_000,
      eval_count: sent.length,
      eval_duration: 3_000_000,
    };
    if (!stream) return json(res, 200, { ...final, message: { role: 'assistant', content: sent.join('') } });
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.on('close', () => {
      if (!res.writableFinished) this.closedEarly++;
    });
    const breaking = this.breakStreamAfter !== undefined && this.breakStreams > 0;
    if (breaking) this.breakStreams--;
    for (let i = 0; i < sent.length; i++) {
      if (breaking && i >= this.breakStreamAfter!) {
        res.socket?.destroy();
        return;
      }
      if (this.latencyMs) await delay(this.latencyMs);
      if (res.destroyed) return;
      res.write(
        `${JSON.stringify({ model, created_at: new Date().toISOString(), message: { role: 'assistant', content: sent[i] }, done: false })}\n`,
      );
      await new Promise((r) => setImmediate(r));
    }
    res.end(`${JSON.stringify(final)}\n`);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(body);
}

/** Starts a fake Ollama for the current test file; `url()` is its address. */
export function useFakeOllamaServer(): { server: FakeOllamaServer; url: () => string } {
  const server = new FakeOllamaServer();
  let url = '';
  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());
  return { server, url: () => url };
}

/** An address where nothing listens (a port that was just free). */
export async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
