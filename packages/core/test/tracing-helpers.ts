import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach } from 'vitest';

/**
 * Registers what an application would, for this test file: an SDK tracer provider exporting to
 * memory and the AsyncLocalStorage context manager (no propagator: km's own `traceparent`
 * fallback carries the context). Whatever an earlier file of the same worker registered is
 * dropped first (test files may share a worker: vitest's `isolate: false`), and this file's
 * registration is dropped after it. Returns the exporter, emptied after each test.
 */
export function useTracing(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  dropTracing();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  afterEach(() => exporter.reset());
  afterAll(async () => {
    dropTracing();
    await provider.shutdown();
  });
  return exporter;
}

/** Unregisters the global tracer provider and context manager, as if no SDK were there. */
export function dropTracing(): void {
  trace.disable();
  context.disable();
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
