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
 */
export const tracer: Tracer = trace.getTracer(KM_TRACER_NAME, KM_CORE_VERSION);
