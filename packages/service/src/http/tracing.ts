import { type Context, context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { extractTraceContext, recordSpanError } from '@km/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SERVICE_VERSION } from '../version.js';

/** The span of a request, with the context that makes it active. */
interface RequestSpan {
  span: Span;
  active: Context;
  error?: unknown;
}

const requestSpans = new WeakMap<FastifyRequest, RequestSpan>();

/**
 * Starts an OpenTelemetry server span per request, `<METHOD> <route>` (`http.request.method`,
 * `http.route`, `url.path`, `http.response.status_code`), continuing the trace of an incoming
 * `traceparent` header, and makes it the active span of the route's handler, so the memory's
 * spans (`km.search`, `km.ask`, `km.pipeline.import`, `km.memory_db.*`, …) are its children.
 * Through `@opentelemetry/api` only: with no SDK registered the spans are no-ops.
 *
 * How the context reaches the handler: the span is made active around the rest of the
 * `onRequest` chain, and again around the `preHandler` chain, which Fastify ends by calling the
 * handler synchronously; so the handler runs in it even when something in between (reading
 * the body, a hook) lost the context. With an `AsyncLocalStorage` context manager registered
 * (the Node SDK does) everything the handler awaits inherits it.
 * The span ends when the response is closed (also for hijacked replies, the SSE answers and
 * `/mcp`, which skip `onResponse`); a 5xx status, or a client that went away first, marks it
 * failed.
 *
 * Call it on the app before it is ready, first among the hooks so it also sees requests that
 * an access-key check answers:
 *
 * ```ts
 * const app = Fastify();
 * registerTracing(app);
 * ```
 */
export function registerTracing(app: FastifyInstance): void {
  const tracer = trace.getTracer('@km/service', SERVICE_VERSION);

  app.addHook('onRequest', (request, reply, done) => {
    const parent = extractTraceContext(request.headers, ROOT_CONTEXT);
    const route = request.routeOptions.url;
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          ...(route ? { 'http.route': route } : {}),
          'url.path': request.url.split('?')[0] ?? request.url,
        },
      },
      parent,
    );
    const traced: RequestSpan = { span, active: trace.setSpan(parent, span) };
    requestSpans.set(request, traced);
    reply.raw.once('close', () => endRequestSpan(traced, reply.raw.statusCode, reply.raw.writableFinished));
    context.with(traced.active, done);
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const traced = requestSpans.get(request);
    if (traced) context.with(traced.active, done);
    else done();
  });

  app.addHook('onError', (request, _reply, error, done) => {
    const traced = requestSpans.get(request);
    if (traced) traced.error = error;
    done();
  });
}

function endRequestSpan({ span, error }: RequestSpan, status: number, finished: boolean): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) recordSpanError(span, error ?? new Error(`HTTP ${status}`));
  else if (!finished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the response ended' });
  span.end();
}
