import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PipelineObserver } from '@km/core';

/** Prometheus metrics of one service process: HTTP requests and pipeline steps. */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly stepDuration: Histogram<'step' | 'result'>;
  private readonly documents: Counter<'result'>;

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'km_' });
    this.httpDuration = new Histogram({
      name: 'km_http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.stepDuration = new Histogram({
      name: 'km_pipeline_step_duration_seconds',
      help: 'Time a pipeline step took, by step name and result',
      labelNames: ['step', 'result'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [this.registry],
    });
    this.documents = new Counter({
      name: 'km_pipeline_documents_total',
      help: 'Documents whose pipeline ended, by result',
      labelNames: ['result'],
      registers: [this.registry],
    });
  }

  /** Feeds step durations and document outcomes to the metrics. */
  readonly observer: PipelineObserver = {
    stepFinished: (e) => this.stepDuration.observe({ step: e.step, result: e.result }, e.durationMs / 1000),
    pipelineFinished: (e) => this.documents.inc({ result: e.failed ? 'failed' : 'completed' }),
  };

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }
}
