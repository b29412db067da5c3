import { TransportQueue } from '@km/core/connector';
import type { AzureQueueOptions } from './azure-queue-config.js';
import { type AzureMessage, AzureQueueTransport } from './azure-queue-transport.js';

/**
 * A km pipeline queue on Azure Storage Queues: core's consumer engine over {@link AzureQueueTransport}.
 * Base64 messages as Kernel Memory writes them, visibility renewed while a step runs, `{queue}-poison`.
 *
 * ```ts
 * const queue = new AzureQueue({ connectionString: process.env.AZURE_STORAGE_CONNECTION_STRING });
 * queue.onDequeue(async (message) => (await handle(message), 'ok'));
 * await queue.connect('extract', { dequeue: true });
 * ```
 */
export class AzureQueue extends TransportQueue<AzureMessage> {
  constructor(options: AzureQueueOptions) {
    super(new AzureQueueTransport(options), options);
  }
}
