import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { tracer } from './tracer.js';

/** Where and how a km span starts. */
export interface KmSpanOptions {
  /** @default SpanKind.INTERNAL */
  kind?: SpanKind | undefined;
  /** The context whose span is the parent. @default the active context */
  parent?: Context | undefined;
}

/**
 * Marks a span failed by `error`: the exception as an event, the status `ERROR` with its
 * message, and `error.type` (a `KmError`'s code, else the error's name).
 */
export function recordSpanError(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.recordException(error instanceof Error ? error : message);
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute('error.type', typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** True when a span records or carries a trace on (false only for the no-op span of an absent SDK without a parent). */
function carriesTrace(span: Span): boolean {
  return span.isRecording() || isSpanContextValid(span.spanContext());
}

/**
 * Runs `fn` in a new span, active for everything `fn` awaits, then ends it. A throw or
 * rejection is recorded on the span (see {@link recordSpanError}) and passed on.
 *
 * ```ts
 * const ids = await withSpan('km.memory_db.upsert_batch', { 'km.index': index }, () => db.upsertBatch(index, records));
 * ```
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  options: KmSpanOptions = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { attributes, ...(options.kind !== undefined ? { kind: options.kind } : {}) }, parent);
  if (!carriesTrace(span)) return fn(span); // no SDK and no trace to continue: nothing to make active
  try {
    return await context.with(trace.setSpan(parent, span), fn, undefined, span);
  } catch (error) {
    recordSpanError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Options of {@link traceIterable}. */
export interface TracedIterableOptions extends KmSpanOptions {
  /** Called once the source is exhausted, before the span ends (e.g. to add token counts). */
  onDone?: ((span: Span) => void) | undefined;
}

/**
 * An async iterable whose iteration runs in a new span: each step of `source` runs with the span
 * active, and the span ends when the source is exhausted, throws, or the consumer stops early
 * (which also closes the source). With no SDK and no trace to continue, `source()` itself.
 *
 * ```ts
 * for await (const match of traceIterable('km.memory_db.search', { 'km.index': index }, () => search(index))) ...
 * ```
 */
export function traceIterable<T>(
  name: string,
  attributes: Attributes,
  source: () => AsyncIterable<T>,
  options: TracedIterableOptions = {},
): AsyncIterable<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { attributes, ...(options.kind !== undefined ? { kind: options.kind } : {}) }, parent);
  if (!carriesTrace(span)) return source();
  return iterateInSpan(span, trace.setSpan(parent, span), source, options.onDone);
}

async function* iterateInSpan<T>(
  span: Span,
  active: Context,
  source: () => AsyncIterable<T>,
  onDone: ((span: Span) => void) | undefined,
): AsyncGenerator<T> {
  let iterator: AsyncIterator<T> | undefined;
  let settled = false;
  try {
    iterator = context.with(active, () => source()[Symbol.asyncIterator]());
    const it = iterator;
    for (;;) {
      const step = await context.with(active, () => it.next());
      if (step.done) {
        settled = true;
        try {
          onDone?.(span);
        } catch {
          // Adding attributes must not fail the iteration.
        }
        return;
      }
      yield step.value;
    }
  } catch (error) {
    settled = true;
    recordSpanError(span, error);
    throw error;
  } finally {
    // The consumer stopped early: close the source as a plain for-await would.
    if (!settled && iterator?.return) await context.with(active, () => iterator!.return!());
    span.end();
  }
}
