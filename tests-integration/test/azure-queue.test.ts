import { randomUUID } from 'node:crypto';
import { QueueServiceClient } from '@azure/storage-queue';
import { eventually } from '@km/conformance';
import type { QueueHandlerResult } from '@km/core';
import { AzureQueue } from '@km/queue-azure';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAzureQueueBackend } from '../src/azurite.js';

// What the conformance suite cannot see on Azure Storage Queues: the wire format and the
// renewal of a long step's visibility.
const azure = await startAzureQueueBackend();
const service = QueueServiceClient.fromConnectionString(azure.connectionString);
const open: AzureQueue[] = [];
afterEach(async () => {
  for (const q of open.splice(0)) await q.close();
});
afterAll(() => azure.stop());

const client = (options: Partial<ConstructorParameters<typeof AzureQueue>[0]> = {}) => {
  const q = new AzureQueue({ connectionString: azure.connectionString, pollIntervalMs: 100, ...options });
  open.push(q);
  return q;
};
const name = () => `kmtest-${randomUUID().slice(0, 8)}`;

describe(`AzureQueue on ${azure.name}`, () => {
  it('sends Base64 text of the UTF-8 message, as the Azure SDKs and Kernel Memory read it', async () => {
    const queue = name();
    const producer = client();
    await producer.connect(queue, { dequeue: false });
    await producer.enqueue('{"document_id":"ünï <x/>"}');
    const { peekedMessageItems } = await service.getQueueClient(queue).peekMessages();
    expect(peekedMessageItems[0]!.messageText).toBe(Buffer.from('{"document_id":"ünï <x/>"}', 'utf8').toString('base64'));
  });

  it('a step longer than the visibility timeout keeps its message: no other consumer gets it, and it is handled once', async () => {
    const queue = name();
    const calls: string[] = [];
    // Both consumers run the same long step: whichever polls first takes the message (on a busy
    // machine that is not always the one connected first), and the other must never get it.
    const slowStep =
      (who: string) =>
      async (m: string): Promise<QueueHandlerResult> => {
        calls.push(`${who}:${m}`);
        await new Promise((resolve) => setTimeout(resolve, 7000)); // over twice the visibility timeout
        return 'ok';
      };
    for (const who of ['first', 'second']) {
      const consumer = client({ visibilityTimeoutMs: 3000 });
      consumer.onDequeue(slowStep(who));
      await consumer.connect(queue, { dequeue: true });
    }
    const producer = client();
    await producer.connect(queue, { dequeue: false });
    await producer.enqueue('long step');
    await eventually(() => expect(calls).toHaveLength(1), 5000);
    const taken = [...calls];
    expect(taken[0]).toMatch(/^(first|second):long step$/);
    await new Promise((resolve) => setTimeout(resolve, 8000));
    expect(calls).toEqual(taken);
    const { approximateMessagesCount } = await service.getQueueClient(queue).getProperties();
    expect(approximateMessagesCount).toBe(0);
  }, 30_000);

  it('a step that ends while a visibility renewal is in flight still deletes its message (it waits for the new receipt)', async () => {
    const queue = name();
    // The real service, with the answer to each visibility update held back 600 ms: the server
    // has already changed the receipt when the step ends, and the client does not know it yet.
    const slowAnswers = QueueServiceClient.fromConnectionString(azure.connectionString);
    const getQueueClient = slowAnswers.getQueueClient.bind(slowAnswers);
    slowAnswers.getQueueClient = (queueName: string) => {
      const client = getQueueClient(queueName);
      const updateMessage = client.updateMessage.bind(client);
      client.updateMessage = async (...args: Parameters<typeof updateMessage>) => {
        const answer = await updateMessage(...args);
        await new Promise((resolve) => setTimeout(resolve, 600));
        return answer;
      };
      return client;
    };
    const handled: string[] = [];
    // Renewals every second; the step ends at 1.2 s, inside the first renewal's delayed answer.
    const consumer = client({ serviceClient: slowAnswers, visibilityTimeoutMs: 3000 });
    consumer.onDequeue(async (m) => {
      handled.push(m);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      return 'ok';
    });
    await consumer.connect(queue, { dequeue: true });
    const producer = client();
    await producer.connect(queue, { dequeue: false });
    await producer.enqueue('ends mid-renewal');
    await eventually(async () => {
      const { approximateMessagesCount } = await service.getQueueClient(queue).getProperties();
      expect(approximateMessagesCount).toBe(0);
    }, 6000);
    expect(handled).toEqual(['ends mid-renewal']);
  }, 30_000);

  it('a message dequeued more often than maxAttempts (consumers dying on it) goes to the poison queue unread', async () => {
    const queue = name();
    const raw = service.getQueueClient(queue);
    const producer = client({ maxAttempts: 2 });
    await producer.connect(queue, { dequeue: false });
    await producer.enqueue('crashes workers');
    // Two consumers that "die": they receive the message and never settle it.
    for (let i = 0; i < 2; i++) {
      expect((await raw.receiveMessages({ visibilityTimeout: 1 })).receivedMessageItems).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 1200));
    }
    const handled: string[] = [];
    const consumer = client({ maxAttempts: 2 });
    consumer.onDequeue(async (m) => (handled.push(m), 'ok'));
    await consumer.connect(queue, { dequeue: true });
    await eventually(async () => {
      const { peekedMessageItems } = await service.getQueueClient(`${queue}-poison`).peekMessages();
      expect(peekedMessageItems.map((m) => Buffer.from(m.messageText, 'base64').toString())).toEqual(['crashes workers']);
    }, 10_000);
    expect(handled).toEqual([]);
  }, 30_000);
});
