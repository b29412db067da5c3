import type { DequeuedMessageItem, QueueClient, QueueServiceClient } from '@azure/storage-queue';
import { InvalidInputError } from '@km/core';
import { poisonQueueName, type QueueTransport, type QueueTransportCapabilities, type TransportMessage } from '@km/core/connector';
import { translateAzureError } from './azure-errors.js';
import type { AzureQueueOptions } from './azure-queue-config.js';
import { decodeMessage, encodeMessage } from './message-encoding.js';
import { azureQueueName } from './queue-names.js';

/** A received message: its receipt changes with every visibility update. */
export interface AzureMessage extends TransportMessage {
  readonly id: string;
  receipt: string;
  /** The Base64 text as stored, copied as it is to the poison queue. */
  readonly text: string;
}

/** Azure hands out at most 32 messages per receive. */
const MAX_BATCH = 32;

/** The transport of `AzureQueue`: visibility timeouts as leases, the dequeue count as attempts, a `-poison` queue. */
export class AzureQueueTransport implements QueueTransport<AzureMessage> {
  readonly names = { connector: 'azure-queue', className: 'AzureQueue', label: 'Azure queue' };
  readonly capabilities: QueueTransportCapabilities;
  queueName: string | undefined;
  private queue: QueueClient | undefined;
  private poisonQueue: QueueClient | undefined;
  private readonly visibilitySeconds: number;

  constructor(private readonly options: AzureQueueOptions) {
    if (!options.serviceClient && !options.connectionString && !options.accountUrl) {
      const message = 'give AzureQueue a connectionString, an accountUrl or a serviceClient';
      throw new InvalidInputError('invalid_argument', message, { connector: this.names.connector });
    }
    this.visibilitySeconds = Math.max(3, Math.ceil((options.visibilityTimeoutMs ?? 60_000) / 1000));
    const pollIntervalMs = Math.max(50, options.pollIntervalMs ?? 1000);
    this.capabilities = { leaseMs: this.visibilitySeconds * 1000, pollIntervalMs, retryJitter: 'equal' };
  }

  /** Creates the queue and its poison queue if missing. */
  async open(name: string): Promise<void> {
    this.queueName = azureQueueName(this.options.queuePrefix ?? '', name);
    const service = await this.call(() => this.serviceClient());
    const [queue, poison] = [service.getQueueClient(this.queueName), service.getQueueClient(poisonQueueName(this.queueName))];
    await this.call(() => queue.createIfNotExists());
    await this.call(() => poison.createIfNotExists());
    [this.queue, this.poisonQueue] = [queue, poison];
  }

  async publish(body: string): Promise<void> {
    const text = encodeMessage(body);
    await this.call(() => this.queue!.sendMessage(text));
  }

  async receive(max: number): Promise<AzureMessage[]> {
    const numberOfMessages = Math.min(MAX_BATCH, max);
    const answer = await this.call(() => this.queue!.receiveMessages({ numberOfMessages, visibilityTimeout: this.visibilitySeconds }));
    const message = ({ messageId: id, popReceipt: receipt, messageText: text, dequeueCount: attempt }: DequeuedMessageItem) => {
      return { body: decodeMessage(text), attempt, id, receipt, text };
    };
    return answer.receivedMessageItems.map(message); // throws on a malformed answer: the engine logs it and polls again
  }

  async ack(message: AzureMessage): Promise<void> {
    await this.call(() => this.queue!.deleteMessage(message.id, message.receipt));
  }

  /** Makes the message visible again after the delay, in whole seconds. */
  async retry(message: AzureMessage, delayMs: number): Promise<void> {
    await this.visibleIn(message, Math.ceil(delayMs / 1000));
  }

  /** Copies the message to the poison queue, then deletes it: a crash between leaves a copy in both, never none. */
  async poison(message: AzureMessage): Promise<void> {
    await this.call(() => this.poisonQueue!.sendMessage(message.text));
    await this.ack(message);
  }

  async renew(message: AzureMessage): Promise<void> {
    await this.visibleIn(message, this.visibilitySeconds);
  }

  async release(message: AzureMessage): Promise<void> {
    await this.visibleIn(message, 0);
  }

  async close(): Promise<void> {}

  /** Sets when the message becomes visible; the service hands out a new receipt, which settling needs. */
  private async visibleIn(message: AzureMessage, seconds: number): Promise<void> {
    const { popReceipt } = await this.call(() => this.queue!.updateMessage(message.id, message.receipt, undefined, seconds));
    if (popReceipt) message.receipt = popReceipt;
  }

  /**
   * The SDK is loaded on first connect, not when this module is imported: processes that
   * configure another queue (the service's default) do not pay for loading it.
   */
  private async serviceClient(): Promise<QueueServiceClient> {
    const { serviceClient, connectionString, accountUrl, credential } = this.options;
    if (serviceClient) return serviceClient;
    const { QueueServiceClient } = await import('@azure/storage-queue');
    return connectionString ? QueueServiceClient.fromConnectionString(connectionString) : new QueueServiceClient(accountUrl!, credential);
  }

  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw translateAzureError(error, this.queueName ?? '');
    }
  }
}
