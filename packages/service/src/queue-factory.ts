import { readSettings } from '@km/core/connector';
import { InvalidInputError, type Logger, type StepQueueFactory } from '@km/core';
import type { ServiceConfig } from './config.js';
import { BUILT_IN_CONNECTORS, queueFactoryOf, type Connectors } from './connectors.js';

/**
 * The queue client factory of the configured queue type; one client per pipeline step. A
 * broker's connector is imported only when configured: a service on the file queue does not
 * load amqplib or the Azure SDK. Every queue's delivery cap is `queue.maxAttempts`, which
 * `loadConfig` derives from `queue.maxStepAttempts`, `queue.retryBudgetMs` and the retry delays
 * as the orchestrator does (unless given).
 */
export async function queueFactory(
  config: ServiceConfig,
  dataDirectory: string,
  logger: Logger,
  connectors: Connectors = BUILT_IN_CONNECTORS,
): Promise<StepQueueFactory> {
  const q = config.queue;
  const factory = queueFactoryOf(q.type, connectors);
  if (!factory) throw new InvalidInputError('invalid_argument', `queue.type ${JSON.stringify(q.type)} names no known queue`);
  const settings = readSettings(factory, { env: {}, section: q, sectionName: 'queue' });
  const { prefix, maxAttempts, retryDelayMs, maxRetryDelayMs, visibilityTimeoutMs, pollIntervalMs, concurrency } = q;
  const context = {
    logger,
    dataDirectory,
    prefix,
    maxAttempts,
    retryDelayMs,
    maxRetryDelayMs,
    visibilityTimeoutMs,
    pollIntervalMs,
    concurrency,
  };
  return factory.create(settings, context);
}
