import type { AnonymousCredential, QueueServiceClient, StorageSharedKeyCredential } from '@azure/storage-queue';
import type { Logger } from '@km/core';

/** Options of {@link AzureQueue}. Every client of one queue should use the same values. */
export interface AzureQueueOptions {
  /** A storage connection string (Azurite: `UseDevelopmentStorage=true`, or its full form). */
  connectionString?: string;
  /** Or the queue endpoint (`https://{account}.queue.core.windows.net`) with a credential. */
  accountUrl?: string;
  /** A `StorageSharedKeyCredential`, or a token credential from `@azure/identity`. */
  credential?: StorageSharedKeyCredential | AnonymousCredential | TokenCredentialLike;
  /** Or a service client of your own. */
  serviceClient?: QueueServiceClient;
  /** Prepended to every queue name, e.g. `km-`. @default '' */
  queuePrefix?: string;
  /** Deliveries (the message's dequeue count) before it moves to the poison queue. @default 5 */
  maxAttempts?: number;
  /** Delay before a transient failure is retried, doubled each attempt; Azure counts in whole seconds. @default 1000 */
  retryDelayMs?: number;
  /** Longest retry delay. @default 60000 */
  maxRetryDelayMs?: number;
  /** How long a received message stays invisible; renewed every third of it while its handler runs. @default 60000 */
  visibilityTimeoutMs?: number;
  /** Longest wait between polls of an empty queue (polling backs off from 50 ms up to this). @default 1000 */
  pollIntervalMs?: number;
  /** Messages handled at once by this client. @default 1 */
  concurrency?: number;
  /** Told about renewal failures and poisoned messages. */
  logger?: Logger;
}

/** A token credential (`@azure/identity`'s `DefaultAzureCredential`, for one). */
export interface TokenCredentialLike {
  getToken(scopes: string | string[], options?: object): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}
