import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  MemoryContentStorage,
  type MemoryService,
  SimpleVectorDb,
  silentLogger,
} from '@km/core';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createServiceLogger } from '../src/logging.js';
import { ServiceMetrics } from '../src/metrics.js';
import { uploadForm, waitForCompletion } from './helpers.js';

// What an application does: an SDK tracer provider and the AsyncLocalStorage context manager.
// An earlier test file of the same worker may have registered its own: it is dropped first.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.disable();
context.disable();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const traceparent = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`;

let app: FastifyInstance;
let memory: MemoryService;
let url: string;
let dataDirectory: string;

beforeAll(async () => {
  dataDirectory = await mkdtemp(join(tmpdir(), 'km-tracing-'));
  memory = new KernelMemoryBuilder()
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withMemoryDb(new SimpleVectorDb())
    .withContentStorage(new MemoryContentStorage())
    .withLogger(silentLogger)
    .buildService();
  await memory.start();
  const config = loadConfig({ env: {}, overrides: { dataDirectory, port: 0 } });
  const logger = createServiceLogger('error', new Writable({ write: (_chunk, _encoding, done) => done() }));
  // createApp registers the tracing hooks itself
  app = await createApp({ memory, config, logger, metrics: new ServiceMetrics({ processMetrics: false }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await memory?.stop({ drainTimeoutMs: 0 });
  await rm(dataDirectory, { recursive: true, force: true });
  trace.disable();
  context.disable();
  await provider.shutdown();
});

afterEach(() => exporter.reset());

/** Waits until a server span named `name` has ended, and returns it with every span finished by then. */
async function serverSpan(name: string): Promise<{ server: ReadableSpan; spans: ReadableSpan[] }> {
  return vi.waitFor(
    () => {
      const spans = exporter.getFinishedSpans();
      const server = spans.find((s) => s.name === name && s.kind === SpanKind.SERVER);
      expect(server).toBeDefined();
      return { server: server!, spans };
    },
    { timeout: 10_000, interval: 20 },
  );
}

function isDescendant(spans: readonly ReadableSpan[], span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  let parentId = span.parentSpanContext?.spanId;
  for (let hops = 0; parentId !== undefined && hops < 100; hops++) {
    if (parentId === ancestor.spanContext().spanId) return true;
    parentId = byId.get(parentId)?.parentSpanContext?.spanId;
  }
  return false;
}

describe('HTTP tracing', () => {
  it('an upload continues the caller trace: the request span wraps the import, and the queued steps join it', async () => {
    const res = await fetch(`${url}/upload`, {
      method: 'POST',
      headers: { traceparent },
      body: uploadForm({ index: 'planets', documentId: 'pluto' }, [
        { name: 'pluto.txt', content: 'Pluto is a dwarf planet.', type: 'text/plain' },
      ]),
    });
    expect(res.status).toBe(202);
    const { server, spans } = await serverSpan('POST /upload');
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/upload', 'http.response.status_code': 202 });
    // The handler read the multipart body, then imported inside the request span.
    const imported = spans.find((s) => s.name === 'km.pipeline.import');
    expect(imported).toBeDefined();
    expect(isDescendant(spans, imported!, server)).toBe(true);

    await waitForCompletion(url, 'pluto', 'planets');
    await vi.waitFor(() => {
      const steps = exporter.getFinishedSpans().filter((s) => s.name === 'km.pipeline.step save_records');
      expect(steps).toHaveLength(1);
      expect(steps[0]!.spanContext().traceId).toBe(TRACE_ID);
    });
  });

  it('an ask request span has the memory spans inside it, in its trace', async () => {
    await memory.importText('Ceres is the largest object in the asteroid belt.', { documentId: 'ceres', index: 'rocks' });
    await waitForCompletion(url, 'ceres', 'rocks');
    exporter.reset();
    const res = await fetch(`${url}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is Ceres?', index: 'rocks' }),
    });
    expect(res.status).toBe(200);
    const { server, spans } = await serverSpan('POST /ask');
    expect(server.parentSpanContext).toBeUndefined();
    const ask = spans.find((s) => s.name === 'km.ask');
    const search = spans.find((s) => s.name === 'km.memory_db.search');
    for (const span of [ask, search]) {
      expect(span?.spanContext().traceId).toBe(server.spanContext().traceId);
      expect(isDescendant(spans, span!, server)).toBe(true);
    }
  });

  it('a body that arrives after the headers still reaches a handler running in the request span', async () => {
    const body = JSON.stringify({ query: 'Ceres', index: 'rocks' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), traceparent },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.flushHeaders();
      setTimeout(() => req.end(body), 100);
    });
    expect(status).toBe(200);
    const { server, spans } = await serverSpan('POST /search');
    const search = spans.find((s) => s.name === 'km.search');
    expect(search?.spanContext().traceId).toBe(TRACE_ID);
    expect(isDescendant(spans, search!, server)).toBe(true);
  });

  it('a streamed answer (a hijacked reply) still ends its span', async () => {
    const res = await fetch(`${url}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent },
      body: JSON.stringify({ question: 'What is Ceres?', index: 'rocks', stream: true }),
    });
    await res.text();
    const { server, spans } = await serverSpan('POST /ask');
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.attributes['http.response.status_code']).toBe(200);
    expect(spans.some((s) => s.name === 'km.ask' && isDescendant(spans, s, server))).toBe(true);
  });

  it('names an unmatched request by its method, and a client error is not a span error', async () => {
    const res = await fetch(`${url}/no-such-route`);
    expect(res.status).toBe(404);
    const { server } = await serverSpan('GET');
    expect(server.attributes).toMatchObject({ 'http.response.status_code': 404, 'url.path': '/no-such-route' });
    expect(server.attributes['http.route']).toBeUndefined();
    expect(server.status.code).not.toBe(SpanStatusCode.ERROR);
  });
});
