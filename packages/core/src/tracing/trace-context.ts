import {
  type Context,
  context,
  createTraceState,
  isSpanContextValid,
  propagation,
  type SpanContext,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';

/** A carrier of trace context: HTTP headers, or the fields of a queue message. */
export type TraceCarrier = Record<string, unknown>;

const W3C_TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

const carrierGetter: TextMapGetter<TraceCarrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => textOf(carrier[key]),
};

/**
 * Writes the trace context of `ctx` (the active one by default) into `carrier` and returns it.
 *
 * Through the propagator the application registered (`propagation.setGlobalPropagator`, which
 * the Node SDK does: W3C trace context and baggage). When none is registered, km writes the
 * W3C `traceparent` (and `tracestate`) of the active span itself, so traces cross km's queues
 * and services with only a tracer provider registered.
 *
 * ```ts
 * const headers = injectTraceContext({});   // { traceparent: '00-…-…-01' } inside a span
 * ```
 */
export function injectTraceContext<C extends TraceCarrier>(carrier: C, ctx: Context = context.active()): C {
  if (propagation.fields().length > 0) {
    propagation.inject(ctx, carrier);
    return carrier;
  }
  const span = trace.getSpanContext(ctx);
  if (!span || !isSpanContextValid(span)) return carrier;
  const writable = carrier as TraceCarrier;
  writable.traceparent = formatTraceparent(span);
  const state = span.traceState?.serialize();
  if (state) writable.tracestate = state;
  return carrier;
}

/**
 * The context `ctx` (the active one by default) continued by the trace context in `carrier`:
 * through the registered propagator, else from its W3C `traceparent` (and `tracestate`) read by
 * km (see {@link injectTraceContext}). A carrier without a valid one gives `ctx` unchanged.
 *
 * ```ts
 * const parent = extractTraceContext(request.headers);
 * ```
 */
export function extractTraceContext(carrier: TraceCarrier, ctx: Context = context.active()): Context {
  if (propagation.fields().length > 0) return propagation.extract(ctx, carrier, carrierGetter);
  const parsed = parseTraceparent(textOf(carrier.traceparent));
  if (!parsed) return ctx;
  const state = textOf(carrier.tracestate);
  const tracestate = typeof state === 'string' ? state : state?.join(',');
  return trace.setSpanContext(ctx, { ...parsed, ...(tracestate ? { traceState: createTraceState(tracestate) } : {}) });
}

/** The W3C `traceparent` of a span context. */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context of a W3C `traceparent`, undefined when it is not a valid one. */
export function parseTraceparent(value: string | string[] | undefined): SpanContext | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  const match = text ? W3C_TRACEPARENT.exec(text) : null;
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const span: SpanContext = { traceId: traceId!, spanId: spanId!, traceFlags: Number.parseInt(flags!, 16), isRemote: true };
  return isSpanContextValid(span) ? span : undefined;
}

function textOf(value: unknown): string | string[] | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return undefined;
}
