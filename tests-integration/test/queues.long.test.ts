import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUEUE_RETRY_AFTER_MS, describeQueue } from '@km/conformance';
import { FileQueue, InMemoryQueue, InMemoryQueueBroker } from '@km/core';
import { QueueNames, RabbitMqQueue, retryDelay } from '@km/queue-rabbitmq';
import { AzureQueue } from '@km/queue-azure';
import { afterAll } from 'vitest';
import { startAzureQueueBackend } from '../src/azurite.js';
import { RABBITMQ_URL, deleteQueues, rabbitMqUnavailable } from '../src/rabbitmq-broker.js';

const broker = new InMemoryQueueBroker();
describeQueue('InMemoryQueue', { create: (settings) => new InMemoryQueue({ broker, ...settings }) });

const folder = mkdtempSync(join(tmpdir(), 'km-file-queue-'));
describeQueue('FileQueue', {
  create: (settings) => new FileQueue({ directory: folder, pollIntervalMs: 20, durable: false, ...settings }),
});

// RabbitMQ: the local broker (`.ci/run` starts it) or KM_TEST_RABBITMQ_URL.
const noRabbit = await rabbitMqUnavailable();
if (noRabbit) console.log(`[km] skipped RabbitMqQueue conformance: ${noRabbit}`);
const rabbitQueues = new Set<string>();
afterAll(async () => {
  if (!noRabbit) await deleteQueues(rabbitQueues);
});
describeQueue('RabbitMqQueue (quorum queues)', {
  skip: noRabbit,
  create: (settings) => {
    const queue = new RabbitMqQueue({ url: RABBITMQ_URL, reconnectDelayMs: 50, ...settings });
    const connect = queue.connect.bind(queue);
    queue.connect = async (name, options) => {
      for (let attempt = 1; attempt < settings.maxAttempts; attempt++)
        rabbitQueues.add(QueueNames.delay(name, retryDelay(attempt, settings.retryDelayMs, 60_000)));
      rabbitQueues.add(QueueNames.delay(name, QUEUE_RETRY_AFTER_MS));
      rabbitQueues.add(name).add(QueueNames.poison(name));
      return connect(name, options);
    };
    return queue;
  },
});

// Azure Storage Queues on Azurite from npm (or KM_TEST_AZURE_QUEUE_CONNECTION_STRING).
const azure = await startAzureQueueBackend();
afterAll(() => azure.stop());
describeQueue(`AzureQueue (${azure.name})`, {
  // Azure counts visibility in whole seconds: a retry waits at least 1 s.
  timeoutMs: 20_000,
  // Azure holds a received message at least 3 s (the transport's floor).
  leaseMs: 3000,
  create: (settings) => new AzureQueue({ connectionString: azure.connectionString, pollIntervalMs: 100, ...settings }),
});
