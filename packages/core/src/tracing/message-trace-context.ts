import { type Context, context, isSpanContextValid, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { extractTraceContext, injectTraceContext } from './trace-context.js';

/**
 * The queue message with the trace context of `ctx` (the active one by default) in its own
 * fields (`traceparent`, `tracestate`, or the registered propagator's), so the consumer's spans
 * continue the producer's trace. Only a message that is a JSON object carries it (km's pipeline
 * pointers are); any other message, or one sent outside a trace (no SDK), is returned unchanged.
 *
 * ```ts
 * withTraceContext('{"index":"default","document_id":"doc1"}'); // adds "traceparent":"00-…" inside a span
 * ```
 */
export function withTraceContext(message: string, ctx: Context = context.active()): string {
  const span = trace.getSpanContext(ctx);
  if (!span || !isSpanContextValid(span)) return message;
  const fields = injectTraceContext({}, ctx);
  if (Object.keys(fields).length === 0) return message;
  const value = jsonObjectOf(message);
  return value ? JSON.stringify({ ...value, ...fields }) : message;
}

/**
 * The context a consumer of `message` continues: `ctx` (the root context by default, never the
 * consumer loop's) with the trace context that {@link withTraceContext} put in the message.
 */
export function traceContextOfMessage(message: string, ctx: Context = ROOT_CONTEXT): Context {
  const registered = propagation.fields();
  const fields = registered.length > 0 ? registered : ['traceparent'];
  if (!fields.some((field) => message.includes(`"${field}"`))) return ctx; // most messages outside a trace: no parse
  const value = jsonObjectOf(message);
  return value ? extractTraceContext(value, ctx) : ctx;
}

function jsonObjectOf(message: string): Record<string, unknown> | undefined {
  const text = message.trimStart();
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
