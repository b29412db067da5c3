import { join } from 'node:path';
import { FileQueue, InMemoryQueue, InMemoryQueueBroker, type Logger, type StepQueueFactory } from '@km/core';
import type { ServiceConfig } from './config.js';

/**
 * The queue client factory of the configured queue type; one client per pipeline step. A
 * broker's connector is imported only when configured: a service on the file queue does not
 * load amqplib or the Azure SDK. Every queue's delivery cap is `queue.maxAttempts`, which
 * `loadConfig` derives from `queue.maxStepAttempts` as the orchestrator does (unless given).
 */
export async function queueFactory(config: ServiceConfig, dataDirectory: string, logger: Logger): Promise<StepQueueFactory> {
  const q = config.queue;
  switch (q.type) {
    case 'rabbitmq': {
      const { RabbitMqQueue } = await import('@km/queue-rabbitmq');
      return () =>
        new RabbitMqQueue({
          url: q.rabbitmqUrl,
          queuePrefix: q.prefix,
          maxAttempts: q.maxAttempts,
          retryDelayMs: q.retryDelayMs,
          concurrency: q.concurrency,
          logger,
        });
    }
    case 'azure': {
      const { AzureQueue } = await import('@km/queue-azure');
      return () =>
        new AzureQueue({
          connectionString: q.azureConnectionString!,
          queuePrefix: q.prefix,
          maxAttempts: q.maxAttempts,
          retryDelayMs: q.retryDelayMs,
          visibilityTimeoutMs: q.visibilityTimeoutMs,
          concurrency: q.concurrency,
          logger,
        });
    }
    case 'memory': {
      const broker = new InMemoryQueueBroker();
      return () => new InMemoryQueue({ broker, maxAttempts: q.maxAttempts, retryDelayMs: q.retryDelayMs, concurrency: q.concurrency });
    }
    default:
      return () =>
        new FileQueue({
          directory: join(dataDirectory, 'queues', ...(q.prefix ? [q.prefix] : [])),
          maxAttempts: q.maxAttempts,
          retryDelayMs: q.retryDelayMs,
          visibilityTimeoutMs: q.visibilityTimeoutMs,
          pollIntervalMs: q.pollIntervalMs,
          concurrency: q.concurrency,
        });
  }
}
