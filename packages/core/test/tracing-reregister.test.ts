import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { withSpan } from '../src/index.js';
import { dropTracing, useTracing } from './tracing-helpers.js';

const first = useTracing();
afterAll(dropTracing);

describe('a tracer provider registered again', () => {
  it("gets km's spans after trace.disable() and a new registration, the old one none", async () => {
    await withSpan('km.first', {}, async () => undefined);
    expect(first.getFinishedSpans().map((s) => s.name)).toEqual(['km.first']);

    dropTracing();
    const second = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(second)] });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    await withSpan('km.second', {}, async () => undefined);

    expect(second.getFinishedSpans().map((s) => s.name)).toEqual(['km.second']);
    expect(first.getFinishedSpans().map((s) => s.name)).toEqual(['km.first']);
    await provider.shutdown();
  });
});
