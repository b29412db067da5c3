import type { AnonymousCredential, ContainerClient, StorageSharedKeyCredential } from '@azure/storage-blob';

/** A token credential from Entra ID (`@azure/identity`'s `DefaultAzureCredential`, for one), passed by the application. */
export interface TokenCredentialLike {
  getToken(scopes: string | string[], options?: object): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}

/**
 * Options of `AzureBlobsContentStorage`. Give ONE way to reach the account: a connection
 * string, an account name and key, an account URL with a SAS token or a credential, a container
 * URL (with a container SAS), or a `ContainerClient` of your own.
 */
export interface AzureBlobsContentStorageOptions {
  /** A storage connection string (Azurite: `UseDevelopmentStorage=true`, or its full form). */
  connectionString?: string;
  /** The storage account name; with `accountKey` (shared key), or with `credential`. */
  accountName?: string;
  /** The account's shared key, with `accountName`. */
  accountKey?: string;
  /**
   * The blob endpoint of the account, e.g. `https://acct.blob.core.windows.net` (the default from
   * `accountName`) or Azurite's `http://127.0.0.1:10000/devstoreaccount1`; may carry a SAS query.
   */
  accountUrl?: string;
  /** A SAS token (`sv=…&sig=…`, with or without `?`) appended to `accountUrl`. */
  sasToken?: string;
  /** A container URL, usually with a container SAS: `https://acct.blob.core.windows.net/km?sv=…`. Names the container itself. */
  containerUrl?: string;
  /** An Entra ID token credential (or a `StorageSharedKeyCredential`) for `accountUrl` or `containerUrl`. */
  credential?: TokenCredentialLike | StorageSharedKeyCredential | AnonymousCredential;
  /** Or a client of your own for the container. */
  containerClient?: ContainerClient;
  /** The container holding every index (3 to 63 lower-case letters, digits and single hyphens; checked at construction). @default 'km-content' */
  container?: string;
  /** Created at first use when missing; `false` with a SAS that may not create containers. @default true */
  createContainer?: boolean;
  /** Prepended to every blob name, e.g. `tenant-1/`. @default '' */
  prefix?: string;
  /**
   * Size of one staged block of a streamed upload, in bytes (1 MiB to 100 MiB). A streamed upload
   * holds at most `uploadBlockBytes × (uploadConcurrency + ⌈¾·uploadConcurrency⌉ + 1)` bytes of
   * block data: 16 MiB with the defaults. Azure allows 50,000 blocks: 2 MiB blocks → files up to ~97 GiB.
   * @default 2 MiB
   */
  uploadBlockBytes?: number;
  /** Block buffers of a streamed upload (¾ of them, rounded up, are staged at once). @default 4 */
  uploadConcurrency?: number;
}

/** The default container: Azure container names have 3 to 63 characters, so not `km`. */
export const DEFAULT_CONTAINER = 'km-content';
export const DEFAULT_UPLOAD_BLOCK_BYTES = 2 * 1024 * 1024;
export const DEFAULT_UPLOAD_CONCURRENCY = 4;
