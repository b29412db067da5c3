import type { Readable } from 'node:stream';
import type { BlobItem, ContainerClient } from '@azure/storage-blob';
import { InvalidInputError, KmError, type SyncItem, type SyncSource, type TagCollection } from '@km/core';
import { cloneTags, validateTags } from '@km/core/connector';
import { isContainerNotFound, isNotFound, translateBlobError } from './azure-blob-errors.js';
import type { AzureBlobsContentStorageOptions } from './azure-blobs-options.js';
import { bodyOf } from './blob-transfer.js';
import { containerClientOf } from './container-client.js';
import { syncFileName } from './sync-file-name.js';
import { syncKeyFilter } from './sync-key-filter.js';

const OWNER = 'azureBlobSource';
const CONNECTOR = 'azureblobs';

/** A blob the source leaves out of its listing, and why. */
export interface SkippedBlob {
  /** Its item id: the blob name relative to the prefix. */
  id: string;
  name: string;
  /** Its size in bytes. */
  size: number;
  /** `too_large`: over `maxBlobBytes`. */
  reason: 'too_large';
}

/**
 * Options of {@link azureBlobSource}. Reach the container as `AzureBlobsContentStorage` does, in ONE
 * way: a `connectionString`, an `accountName` with `accountKey`, an `accountUrl` with a `sasToken`
 * or a `credential`, a `containerUrl`, or a `containerClient` of your own.
 */
export interface AzureBlobSourceOptions
  extends Pick<
    AzureBlobsContentStorageOptions,
    'connectionString' | 'accountName' | 'accountKey' | 'accountUrl' | 'sasToken' | 'containerUrl' | 'credential' | 'containerClient'
  > {
  /** The container. Required, unless a `containerClient` or a `containerUrl` names it. */
  container?: string;
  /**
   * The "folder" to sync, e.g. `docs/handbook`: only blobs under it are listed, and item ids are
   * blob names relative to it. A `/` is added when missing (`docs` syncs `docs/…`, not `docs-old/…`).
   * @default '' (the whole container)
   */
  prefix?: string;
  /** Globs on the blob name relative to the prefix, e.g. `['**\/*.md']`; none or `[]` takes every blob. @default every blob */
  include?: string[];
  /** Globs on the blob name relative to the prefix that are left out, e.g. `['drafts/**']`. @default none */
  exclude?: string[];
  /** Blobs larger than this many bytes are left out (and reported to `onSkip`). @default no limit */
  maxBlobBytes?: number;
  /** Called for each blob left out by `maxBlobBytes`. Must not throw. */
  onSkip?: (skipped: SkippedBlob) => void;
  /** Blobs asked for per listing page (Azure answers at most 5000). @default 5000 */
  pageSize?: number;
  /** The source id, instead of `azure-blob://{account}/{container}/{prefix}`. Documents synced from it carry this id. */
  id?: string;
  /** Tags of every item (user tags: keys starting with `__` are refused). */
  tags?: TagCollection;
}

/**
 * A sync source over the blobs of an Azure Blob Storage container under a prefix. Item ids are
 * blob names relative to the prefix; versions are ETags (a new one at every write of the blob).
 * "Folder" blobs (names ending in `/`, and the directories of accounts with a hierarchical
 * namespace) are left out. Errors are km errors: a missing container is `not_configured`,
 * refused credentials `unauthorized`, network failures `transient`.
 *
 * ```ts
 * const report = await memory.sync(
 *   azureBlobSource({ connectionString: process.env.AZURE_STORAGE_CONNECTION_STRING, container: 'docs', prefix: 'handbook/' }),
 * );
 * ```
 */
export function azureBlobSource(options: AzureBlobSourceOptions): AzureBlobSyncSource {
  return new AzureBlobSyncSource(options);
}

/** The source {@link azureBlobSource} returns. */
export class AzureBlobSyncSource implements SyncSource {
  readonly id: string;
  readonly kind = 'azure-blob';
  /** The listed prefix, `''` or ending in `/`. */
  readonly prefix: string;
  readonly container: ContainerClient;
  private readonly taken: (relativeName: string) => boolean;
  private readonly maxBlobBytes: number | undefined;
  private readonly pageSize: number | undefined;
  private readonly tags: TagCollection | undefined;
  private readonly onSkip: ((skipped: SkippedBlob) => void) | undefined;

  constructor(options: AzureBlobSourceOptions) {
    const fail = (message: string): never => {
      throw new InvalidInputError('invalid_argument', `${OWNER}: ${message}`, { connector: CONNECTOR });
    };
    if (options === null || typeof options !== 'object') fail('options are required');
    const { container, maxBlobBytes, pageSize, id } = options;
    const prefix = options.prefix ?? '';
    if (typeof prefix !== 'string' || prefix.startsWith('/') || prefix.includes('//')) {
      fail(`prefix ${JSON.stringify(prefix)} must be a string that does not start with '/' nor hold '//'`);
    }
    if (container === undefined && !options.containerClient && !options.containerUrl) fail('container is required');
    if (maxBlobBytes !== undefined && !(Number.isInteger(maxBlobBytes) && maxBlobBytes >= 0)) fail('maxBlobBytes must be an integer >= 0');
    if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 5000))
      fail('pageSize must be an integer from 1 to 5000');
    if (id !== undefined && (typeof id !== 'string' || id.trim() === '')) fail('id must be a non-empty string');
    this.taken = syncKeyFilter(options.include, options.exclude, OWNER);
    const { connectionString, accountName, accountKey, accountUrl, sasToken, containerUrl, credential, containerClient } = options;
    this.container = containerClientOf(
      {
        connectionString,
        accountName,
        accountKey,
        accountUrl,
        sasToken,
        containerUrl,
        credential,
        containerClient,
        container,
      },
      OWNER,
    );
    if (container !== undefined && this.container.containerName !== container) {
      fail(`container "${container}" is not the container of the given client or URL ("${this.container.containerName}")`);
    }
    this.prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    const account = this.container.accountName || new URL(this.container.url).host;
    this.id = id ?? `azure-blob://${account}/${this.container.containerName}/${this.prefix}`;
    this.maxBlobBytes = maxBlobBytes;
    this.pageSize = pageSize;
    this.tags = options.tags === undefined ? undefined : validateTags(options.tags);
    this.onSkip = options.onSkip;
  }

  /** Every blob under the prefix that the globs and the size limit take, page after page. Throws when a page fails. */
  async *list(signal?: AbortSignal): AsyncIterable<SyncItem> {
    const pages = this.container
      .listBlobsFlat({
        ...(this.prefix !== '' ? { prefix: this.prefix } : {}),
        includeMetadata: true,
        ...(signal ? { abortSignal: signal } : {}),
      })
      .byPage(this.pageSize ? { maxPageSize: this.pageSize } : {});
    while (true) {
      let next: IteratorResult<{ segment: { blobItems: BlobItem[] } }>;
      try {
        signal?.throwIfAborted();
        next = await pages.next();
      } catch (error) {
        throw this.error(error, `listing of "${this.prefix}"`, signal);
      }
      if (next.done) return;
      for (const blob of next.value.segment.blobItems) {
        const item = this.itemOf(blob);
        if (item) yield item;
      }
    }
  }

  private itemOf(blob: BlobItem): SyncItem | undefined {
    const name = blob.name;
    if (!name.startsWith(this.prefix) || name.endsWith('/') || blob.metadata?.hdi_isfolder === 'true') return undefined; // a "folder"
    const id = name.slice(this.prefix.length);
    if (!this.taken(id)) return undefined;
    const size = blob.properties.contentLength ?? 0;
    if (this.maxBlobBytes !== undefined && size > this.maxBlobBytes) {
      try {
        this.onSkip?.({ id, name, size, reason: 'too_large' });
      } catch {
        // onSkip must not throw; if it does, the listing goes on.
      }
      return undefined;
    }
    const contentType = blob.properties.contentType;
    return {
      id,
      version: versionOf(blob),
      fileName: syncFileName(id),
      // The SDK's upload default says nothing: leave the type to detection then.
      ...(contentType && contentType !== 'application/octet-stream' ? { mimeType: contentType } : {}),
      ...(this.tags ? { tags: cloneTags(this.tags) } : {}),
      open: (signal) => this.open(name, signal),
    };
  }

  private async open(name: string, signal?: AbortSignal): Promise<Uint8Array | Readable> {
    const what = `read of "${name}"`;
    try {
      signal?.throwIfAborted();
      const answer = await this.container.getBlobClient(name).download(0, undefined, signal ? { abortSignal: signal } : {});
      return bodyOf(answer, (error) => translateBlobError(error, what));
    } catch (error) {
      if (!signal?.aborted && isNotFound(error) && !isContainerNotFound(error)) {
        throw new KmError(
          'file_not_found',
          `blob "${name}" of container "${this.container.containerName}" is gone (deleted since the listing?)`,
          {
            connector: CONNECTOR,
            cause: error,
          },
        );
      }
      throw this.error(error, what, signal);
    }
  }

  private error(error: unknown, what: string, signal: AbortSignal | undefined): KmError {
    if (signal?.aborted) return new KmError('aborted', `${OWNER} ${this.id}: ${what} aborted`, { connector: CONNECTOR, cause: error });
    if (isContainerNotFound(error)) {
      return new KmError('not_configured', `container "${this.container.containerName}" does not exist`, {
        connector: CONNECTOR,
        cause: error,
      });
    }
    return translateBlobError(error, what);
  }
}

/** The version of a listed blob: its ETag without quotes; size and modification time when there is none. */
function versionOf(blob: BlobItem): string {
  const etag = blob.properties.etag?.replace(/^(W\/)?"(.*)"$/, '$2');
  if (etag) return etag;
  return `${blob.properties.contentLength ?? 0}@${blob.properties.lastModified?.toISOString() ?? ''}`;
}
