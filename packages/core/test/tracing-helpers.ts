import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach } from 'vitest';

const REGISTERED = Symbol.for('km.test.tracing-exporter');

/**
 * Registers, once per process, what an application would: an SDK tracer provider exporting to
 * memory and the AsyncLocalStorage context manager (no propagator: km's own `traceparent`
 * fallback carries the context). Returns the exporter, emptied after each test.
 */
export function useTracing(): InMemorySpanExporter {
  const holder = globalThis as { [REGISTERED]?: InMemorySpanExporter };
  let exporter = holder[REGISTERED];
  if (!exporter) {
    exporter = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    holder[REGISTERED] = exporter;
  }
  const used = exporter;
  afterEach(() => used.reset());
  return used;
}

/** The finished spans named `name` (or starting with it, when it ends with a space). */
export function spansNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((s) => (name.endsWith(' ') ? s.name.startsWith(name) : s.name === name));
}

/** The one finished span named `name`; throws when there is none or several. */
export function onlySpan(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spansNamed(spans, name);
  if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}

/** True when `ancestor` is `span`'s parent, or its parent's, and so on (within the finished spans). */
export function isDescendant(spans: readonly ReadableSpan[], span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  let parentId = span.parentSpanContext?.spanId;
  for (let hops = 0; parentId !== undefined && hops < 100; hops++) {
    if (parentId === ancestor.spanContext().spanId) return true;
    parentId = byId.get(parentId)?.parentSpanContext?.spanId;
  }
  return false;
}

/** The span's parent among the finished spans. */
export function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return id === undefined ? undefined : spans.find((s) => s.spanContext().spanId === id);
}
