import { randomUUID } from 'node:crypto';
import { QueueServiceClient } from '@azure/storage-queue';
import { eventually } from '@km/conformance';
import { silentLogger, type Logger } from '@km/core';
import { AzureQueue } from '@km/queue-azure';
import { afterAll, describe, expect, it } from 'vitest';
import { startAzureQueueBackend } from '../src/azurite.js';

// A poll loop that fails in a way it does not expect is restarted (after a backoff), never left
// dead in a live worker.
const azure = await startAzureQueueBackend();
afterAll(() => azure.stop());

describe(`AzureQueue poll loop on ${azure.name}`, () => {
  it('a receive that fails outside the expected errors (a malformed answer) restarts the loop: a later message is still handled', async () => {
    const queue = `kmtest-${randomUUID().slice(0, 8)}`;
    // The real service, with the first receive answered by something the loop cannot read.
    const flaky = QueueServiceClient.fromConnectionString(azure.connectionString);
    const getQueueClient = flaky.getQueueClient.bind(flaky);
    let receives = 0;
    flaky.getQueueClient = (queueName: string) => {
      const client = getQueueClient(queueName);
      const receiveMessages = client.receiveMessages.bind(client);
      client.receiveMessages = async (...args: Parameters<typeof receiveMessages>) => {
        if (queueName === queue && receives++ === 0) return {} as Awaited<ReturnType<typeof receiveMessages>>;
        return receiveMessages(...args);
      };
      return client;
    };
    const errors: string[] = [];
    const logger: Logger = { ...silentLogger, error: (message: string) => void errors.push(message) };
    const consumer = new AzureQueue({ serviceClient: flaky, pollIntervalMs: 100, logger });
    const producer = new AzureQueue({ connectionString: azure.connectionString });
    const handled: string[] = [];
    consumer.onDequeue(async (m) => (handled.push(m), 'ok'));
    try {
      await consumer.connect(queue, { dequeue: true });
      await eventually(() => expect(errors).toEqual([expect.stringMatching(/Azure queue polling/)]), 5000);
      await producer.connect(queue, { dequeue: false });
      await producer.enqueue('after the failure');
      await eventually(() => expect(handled).toEqual(['after the failure']), 10_000);
      expect(receives).toBeGreaterThan(1);
    } finally {
      await consumer.close();
      await producer.close();
    }
  }, 30_000);
});
