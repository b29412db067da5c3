import type { AnonymousCredential, QueueServiceClient, StorageSharedKeyCredential } from '@azure/storage-queue';
import type { QueueConsumerOptions } from '@km/core/connector';

/** Options of {@link AzureQueue}, beside the engine's (`maxAttempts` 5 as the dequeue count, `concurrency`, `logger`...). Every client of one queue should use the same values. */
export interface AzureQueueOptions extends QueueConsumerOptions {
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
  /** Ceiling of the first retry delay of a transient failure, in ms, doubled each attempt, rounded up to whole seconds (Azure's unit); equal jitter (between half and all of it) spreads the retries of many workers. @default 1000 */
  retryDelayMs?: number;
  /** How long a received message stays invisible, in ms; renewed every third of it while its handler runs. @default 60000 */
  visibilityTimeoutMs?: number;
  /** Longest wait between polls of an empty queue, in ms (polling backs off from 50 ms up to this). @default 1000 */
  pollIntervalMs?: number;
}

/** A token credential (`@azure/identity`'s `DefaultAzureCredential`, for one). */
export interface TokenCredentialLike {
  getToken(scopes: string | string[], options?: object): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}
