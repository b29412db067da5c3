import { createRequire } from 'node:module';
import { type Tracer, trace } from '@opentelemetry/api';

/** The instrumentation scope of km's spans. */
export const KM_TRACER_NAME = '@km/core';

/** Version of @km/core, from its package.json: the version of km's spans. */
export const KM_CORE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/**
 * The tracer of every km span, from the global tracer provider of `@opentelemetry/api`. With no
 * SDK registered it is the API's no-op tracer: spans cost a few object allocations and record
 * nothing. The application registers the SDK and exporter it chooses; km never does.
 *
 * ```ts
 * import { BasicTracerProvider, SimpleSpanProcessor, ConsoleSpanExporter } from '@opentelemetry/sdk-trace-base';
 * import { trace } from '@opentelemetry/api';
 * trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] }));
 * // from now on km's spans go to the console
 * ```
 *
 * It asks the API for the global provider's tracer at each span, so a provider registered again
 * after `trace.disable()` (as test runners sharing a process do) gets km's spans too.
 */
export const tracer: Tracer = {
  startSpan: (name, options, context) => currentTracer().startSpan(name, options, context),
  startActiveSpan: ((...args: Parameters<Tracer['startActiveSpan']>) =>
    (currentTracer().startActiveSpan as (...a: unknown[]) => unknown)(...args)) as Tracer['startActiveSpan'],
};

function currentTracer(): Tracer {
  return trace.getTracer(KM_TRACER_NAME, KM_CORE_VERSION);
}
