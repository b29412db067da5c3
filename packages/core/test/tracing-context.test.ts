import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import {
  extractTraceContext,
  injectTraceContext,
  parseTraceparent,
  traceContextOfMessage,
  tracer,
  withSpan,
  withTraceContext,
} from '../src/index.js';
import { useTracing } from './tracing-helpers.js';

useTracing();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

describe('trace context propagation without a registered propagator', () => {
  it('writes the W3C traceparent of the active span', async () => {
    await withSpan('outer', {}, async (span) => {
      const carrier = injectTraceContext({});
      const { traceId, spanId } = span.spanContext();
      expect(carrier).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    });
  });

  it('writes nothing outside a span', () => {
    expect(injectTraceContext({})).toEqual({});
  });

  it('continues an incoming traceparent (header arrays and tracestate included)', () => {
    const ctx = extractTraceContext({ traceparent: [`00-${TRACE_ID}-${SPAN_ID}-01`], tracestate: 'vendor=abc' }, ROOT_CONTEXT);
    const parent = trace.getSpanContext(ctx);
    expect(parent).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true });
    expect(parent?.traceState?.get('vendor')).toBe('abc');
    const child = tracer.startSpan('child', {}, ctx);
    expect(child.spanContext().traceId).toBe(TRACE_ID);
    child.end();
  });

  it('ignores a malformed or all-zero traceparent', () => {
    for (const value of [
      'garbage',
      `00-${'0'.repeat(32)}-${SPAN_ID}-01`,
      `ff-${TRACE_ID}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${SPAN_ID}-01-extra`,
    ]) {
      expect(parseTraceparent(value)).toBeUndefined();
      expect(extractTraceContext({ traceparent: value }, ROOT_CONTEXT)).toBe(ROOT_CONTEXT);
    }
    // A later version may add fields after the flags.
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01-more`)).toMatchObject({ traceId: TRACE_ID });
  });

  it('carries the context inside a JSON queue message, and leaves other messages alone', async () => {
    await withSpan('producer', {}, async (span) => {
      const message = withTraceContext('{"index":"default","document_id":"doc1"}');
      const fields = JSON.parse(message) as Record<string, string>;
      expect(fields).toMatchObject({ index: 'default', document_id: 'doc1' });
      expect(fields.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
      const consumer = trace.getSpanContext(traceContextOfMessage(message));
      expect(consumer?.spanId).toBe(span.spanContext().spanId);
      expect(withTraceContext('plain text')).toBe('plain text');
      expect(withTraceContext('[1,2]')).toBe('[1,2]');
    });
    expect(withTraceContext('{"a":1}')).toBe('{"a":1}');
    expect(traceContextOfMessage('{"a":1}')).toBe(ROOT_CONTEXT);
  });

  it('withSpan makes the span active, records a failure and passes it on', async () => {
    let inner: string | undefined;
    await expect(
      withSpan('failing', { 'km.index': 'x' }, async (span) => {
        inner = trace.getSpan(context.active())?.spanContext().spanId;
        expect(inner).toBe(span.spanContext().spanId);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(inner).toBeDefined();
  });
});
