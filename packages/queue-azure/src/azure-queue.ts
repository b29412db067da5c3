import { setTimeout as sleep } from 'node:timers/promises';
import type { DequeuedMessageItem, QueueClient, QueueServiceClient } from '@azure/storage-queue';
import {
  InvalidInputError,
  KmError,
  checkQueueConnect,
  silentLogger,
  type IQueue,
  type Logger,
  type QueueConnectOptions,
  type QueueHandlerResult,
} from '@km/core';
import { translateAzureError } from './azure-errors.js';
import type { AzureQueueOptions } from './azure-queue-config.js';
import { decodeMessage, encodeMessage } from './message-encoding.js';
import { azurePoisonQueueName, azureQueueName } from './queue-names.js';

const CONNECTOR = 'azure-queue';
/** Azure hands out at most 32 messages per receive. */
const MAX_BATCH = 32;
const FIRST_POLL_DELAY_MS = 50;
/** A poll loop that fails is restarted after this, doubling on each failure in a row up to the cap. */
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;

/** A message this client holds: its receipt changes with every visibility update. */
interface Claim {
  messageId: string;
  popReceipt: string;
  renew: NodeJS.Timeout;
  /** The visibility update in flight, if any: settling must wait for its new receipt. */
  renewing?: Promise<void>;
}

/**
 * A km pipeline queue on Azure Storage Queues, through `@azure/storage-queue`.
 *
 * - Messages are Base64 text of the UTF-8 message, as the Azure SDKs and Kernel Memory expect.
 * - A received message is invisible for `visibilityTimeoutMs`, renewed every third of it while
 *   its handler runs, so long steps keep it and a dead consumer's messages come back.
 * - `ok` deletes the message. A transient failure makes it visible again after the retry
 *   delay. A fatal result, or a dequeue count past `maxAttempts`, moves it to `{queue}-poison`.
 * - `close()` hands the messages in progress back at once (visibility 0).
 *
 * ```ts
 * const queue = new AzureQueue({ connectionString: process.env.AZURE_STORAGE_CONNECTION_STRING });
 * queue.onDequeue(async (message) => (await handle(message), 'ok'));
 * await queue.connect('extract', { dequeue: true });
 * ```
 */
export class AzureQueue implements IQueue {
  private readonly options: AzureQueueOptions;
  private readonly prefix: string;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly visibilitySeconds: number;
  private readonly pollIntervalMs: number;
  private readonly concurrency: number;
  private readonly logger: Logger;
  private name: string | undefined;
  private queue: QueueClient | undefined;
  private poison: QueueClient | undefined;
  private handler: ((message: string) => Promise<QueueHandlerResult>) | undefined;
  private readonly claims = new Set<Claim>();
  private readonly inFlight = new Set<Promise<void>>();
  private polling: Promise<void> | undefined;
  private wake: AbortController | undefined;
  private closed = false;
  /** Whether the running poll loop has received from the queue since it (re)started. */
  private received = false;

  constructor(options: AzureQueueOptions) {
    if (!options.serviceClient && !options.connectionString && !options.accountUrl) {
      throw new InvalidInputError('invalid_argument', 'give AzureQueue a connectionString, an accountUrl or a serviceClient', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.prefix = options.queuePrefix ?? '';
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? 1000);
    this.maxRetryDelayMs = Math.max(this.retryDelayMs, options.maxRetryDelayMs ?? 60_000);
    this.visibilitySeconds = Math.max(3, Math.ceil((options.visibilityTimeoutMs ?? 60_000) / 1000));
    this.pollIntervalMs = Math.max(FIRST_POLL_DELAY_MS, options.pollIntervalMs ?? 1000);
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
    this.logger = options.logger ?? silentLogger;
  }

  /** The Azure name of the queue this client is connected to. */
  get queueName(): string | undefined {
    return this.name;
  }

  onDequeue(handler: (message: string) => Promise<QueueHandlerResult>): void {
    this.handler = handler;
  }

  /** Creates the queue and its poison queue if missing, and starts polling when asked. */
  async connect(name: string, options: QueueConnectOptions): Promise<void> {
    checkQueueConnect({ closed: this.closed, connectedTo: this.name, hasHandler: Boolean(this.handler) }, options, {
      connector: CONNECTOR,
      className: 'AzureQueue',
    });
    const queueName = azureQueueName(this.prefix, name);
    let queue: QueueClient;
    let poison: QueueClient;
    try {
      const service = await this.serviceClient();
      queue = service.getQueueClient(queueName);
      poison = service.getQueueClient(azurePoisonQueueName(queueName));
      await queue.createIfNotExists();
      await poison.createIfNotExists();
    } catch (error) {
      throw translateAzureError(error, queueName);
    }
    this.name = queueName;
    this.queue = queue;
    this.poison = poison;
    if (options.dequeue) this.polling = this.keepPolling();
  }

  async enqueue(message: string): Promise<void> {
    if (typeof message !== 'string')
      throw new InvalidInputError('invalid_argument', 'a queue message must be a string', { connector: CONNECTOR });
    const queue = this.connected();
    const text = encodeMessage(message);
    try {
      await queue.sendMessage(text);
    } catch (error) {
      throw translateAzureError(error, this.name!);
    }
  }

  /** Stops polling and makes the messages in progress visible again at once; handlers still running are not interrupted and their results are ignored. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.abort();
    await this.polling?.catch(() => undefined);
    const held = [...this.claims];
    this.claims.clear();
    for (const claim of held) {
      await this.stopRenewing(claim);
      await this.queue!.updateMessage(claim.messageId, claim.popReceipt, undefined, 0).catch(() => undefined);
    }
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

  private connected(): QueueClient {
    if (!this.queue) throw new KmError('invalid_argument', 'call connect() before using the queue', { connector: CONNECTOR });
    return this.queue;
  }

  /**
   * Runs the poll loop until close(). poll() catches what it expects (a failed receive is
   * retried); anything else that ends it (a malformed answer, a logger that throws) is logged and
   * the loop restarts after a capped exponential backoff, so a live consumer never stops taking
   * messages. Never rejects.
   */
  private async keepPolling(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      this.received = false;
      try {
        await this.poll();
      } catch (error) {
        if (this.closed) return;
        // A loop that received before failing starts the backoff over.
        failures = this.received ? 1 : failures + 1;
        const delayMs = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (failures - 1));
        try {
          this.logger.error('Azure queue polling failed; restarting', { queue: this.name, error: describe(error), delayMs });
        } catch {
          // A logger that fails must not stop the consumer either.
        }
        await this.pause(sleep(delayMs));
      }
    }
  }

  private async poll(): Promise<void> {
    let idle = FIRST_POLL_DELAY_MS;
    while (!this.closed) {
      const free = this.concurrency - this.claims.size;
      if (free <= 0) {
        await this.pause(Promise.race([...this.inFlight]));
        continue;
      }
      let messages: DequeuedMessageItem[] = [];
      try {
        ({ receivedMessageItems: messages } = await this.queue!.receiveMessages({
          numberOfMessages: Math.min(MAX_BATCH, free),
          visibilityTimeout: this.visibilitySeconds,
        }));
        this.received = true;
      } catch (error) {
        this.logger.warn('Azure queue receive failed; retrying', {
          queue: this.name,
          error: translateAzureError(error, this.name!).message,
        });
      }
      for (const message of messages) {
        if (this.closed) {
          await this.queue!.updateMessage(message.messageId, message.popReceipt, undefined, 0).catch(() => undefined);
          continue;
        }
        const work = this.handle(message).catch((error: unknown) =>
          this.logger.error('Azure queue delivery handling failed', { queue: this.name, error: (error as Error).message }),
        );
        this.inFlight.add(work);
        void work.finally(() => this.inFlight.delete(work));
      }
      if (messages.length > 0) {
        idle = FIRST_POLL_DELAY_MS;
        continue;
      }
      await this.pause(sleep(idle));
      idle = Math.min(this.pollIntervalMs, idle * 2);
    }
  }

  /** Waits for `event`, or for close() to end the wait. */
  private async pause(event: Promise<unknown>): Promise<void> {
    this.wake = new AbortController();
    if (this.closed) return;
    const closing = new Promise<void>((resolve) => this.wake!.signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([event.catch(() => undefined), closing]);
  }

  private async handle(message: DequeuedMessageItem): Promise<void> {
    const claim: Claim = { messageId: message.messageId, popReceipt: message.popReceipt, renew: undefined as unknown as NodeJS.Timeout };
    if (message.dequeueCount > this.maxAttempts) {
      // Delivered too often without an answer (consumers dying on it): poison it unread.
      await this.moveToPoison(claim, message.messageText, `dequeued ${message.dequeueCount} times`);
      return;
    }
    claim.renew = setInterval(() => this.renew(claim), Math.max(1000, (this.visibilitySeconds * 1000) / 3));
    this.claims.add(claim);
    let result: QueueHandlerResult;
    try {
      result = await this.handler!(decodeMessage(message.messageText));
    } catch (error) {
      this.logger.warn('queue handler threw; retrying the message', { queue: this.name, error: (error as Error).message });
      result = 'transient';
    }
    await this.stopRenewing(claim);
    // Closed meanwhile: the message was handed back already.
    if (!this.claims.delete(claim)) return;
    try {
      if (result === 'ok') await this.queue!.deleteMessage(claim.messageId, claim.popReceipt);
      else if (result === 'fatal' || message.dequeueCount >= this.maxAttempts) {
        await this.moveToPoison(claim, message.messageText, result === 'fatal' ? 'fatal' : `failed ${message.dequeueCount} times`);
      } else {
        const delayMs = Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** (message.dequeueCount - 1));
        await this.queue!.updateMessage(claim.messageId, claim.popReceipt, undefined, Math.ceil(delayMs / 1000));
      }
    } catch (error) {
      // The receipt expired (another consumer has it) or the service is unreachable: the
      // message becomes visible again when its timeout ends.
      this.logger.warn('Azure queue could not settle a message', {
        queue: this.name,
        error: translateAzureError(error, this.name!).message,
      });
    }
  }

  /** Extends the claim's visibility; one update at a time, each taking the receipt the last one returned. */
  private renew(claim: Claim): void {
    if (claim.renewing) return;
    claim.renewing = this.queue!.updateMessage(claim.messageId, claim.popReceipt, undefined, this.visibilitySeconds)
      .then(({ popReceipt }) => {
        if (popReceipt) claim.popReceipt = popReceipt;
      })
      .catch((error: unknown) => {
        this.logger.warn('Azure queue could not extend a message lease', {
          queue: this.name,
          error: translateAzureError(error, this.name!).message,
        });
      })
      .finally(() => {
        claim.renewing = undefined;
      });
  }

  /**
   * Stops the renewals and waits for one still in flight: the service changes the receipt when
   * it applies an update, so a delete sent with the receipt from before would be refused and
   * the handled message would come back.
   */
  private async stopRenewing(claim: Claim): Promise<void> {
    clearInterval(claim.renew);
    await claim.renewing;
  }

  /** Copies the message to the poison queue, then deletes it: a crash between leaves a copy in both, never none. */
  private async moveToPoison(claim: Pick<Claim, 'messageId' | 'popReceipt'>, text: string, why: string): Promise<void> {
    await this.poison!.sendMessage(text);
    await this.queue!.deleteMessage(claim.messageId, claim.popReceipt);
    this.logger.warn('message moved to the poison queue', { queue: this.name, why });
  }
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'an error that cannot be described';
  }
}
