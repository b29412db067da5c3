import { Readable } from 'node:stream';
import type { BlobDownloadResponseParsed, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { type ByteRange, type IContentStorage, KmError, type StorageContent, type StoredFileInfo } from '@km/core';
import { StoragePaths, mimeTypeOf, writeConflict } from '@km/core/connector';
import { isConditionFailed, isContainerNotFound, isInvalidRange, isNotFound, translateBlobError } from './azure-blob-errors.js';
import { type AzureBlobsContentStorageOptions, DEFAULT_UPLOAD_BLOCK_BYTES, DEFAULT_UPLOAD_CONCURRENCY } from './azure-blobs-options.js';
import { BlobDeletion } from './blob-deletion.js';
import { bodyOf, isRestError, uploadStreamed } from './blob-transfer.js';
import { containerClientOf } from './container-client.js';

const MIB = 1024 * 1024;

/**
 * km content storage on Azure Blob Storage: one container, blobs `{prefix}{index}/{documentId}/{file}`.
 * Streams are uploaded as staged blocks committed at the end (a failed stream never becomes a
 * blob), reads use ranged downloads, and the pipeline state is written with ETag conditions.
 *
 * ```ts
 * const storage = new AzureBlobsContentStorage({ connectionString: process.env.AZURE_STORAGE_CONNECTION_STRING });
 * ```
 */
export class AzureBlobsContentStorage implements IContentStorage {
  readonly supportsByteRanges: boolean = true;
  /** The container's URL (without any SAS) and the prefix, for logs and errors. */
  readonly location: string;
  /** The container client (for tools and tests). */
  readonly container: ContainerClient;
  private readonly names: StoragePaths;
  private readonly deletion: BlobDeletion;
  private readonly createContainer: boolean;
  private readonly blockBytes: number;
  private readonly concurrency: number;
  private containerReady: Promise<void> | undefined;

  constructor(options: AzureBlobsContentStorageOptions) {
    this.container = containerClientOf(options);
    this.names = new StoragePaths(options.prefix ?? '');
    this.location = `${this.container.url.split('?')[0]}/${this.names.prefix}`;
    this.deletion = new BlobDeletion(this.container);
    this.createContainer = options.createContainer ?? true;
    this.blockBytes = Math.min(100 * MIB, Math.max(MIB, Math.floor(options.uploadBlockBytes ?? DEFAULT_UPLOAD_BLOCK_BYTES)));
    this.concurrency = Math.min(64, Math.max(1, Math.floor(options.uploadConcurrency ?? DEFAULT_UPLOAD_CONCURRENCY)));
  }

  /** Folders are part of blob names: this only makes sure the container exists. */
  async createIndexDirectory(index: string): Promise<void> {
    this.names.index(index);
    await this.ensureContainer();
  }

  async deleteIndexDirectory(index: string): Promise<void> {
    await this.deletion.deleteUnder(this.names.index(index));
  }

  /** Folders are part of blob names: this only makes sure the container exists. */
  async createDocumentDirectory(index: string, documentId: string): Promise<void> {
    this.names.document(index, documentId);
    await this.ensureContainer();
  }

  async deleteDocumentDirectory(index: string, documentId: string): Promise<void> {
    await this.deletion.deleteUnder(this.names.document(index, documentId));
  }

  /** Deletes every file; on a flat namespace the folder is then gone too (it reappears with the next file). */
  async emptyDocumentDirectory(index: string, documentId: string): Promise<void> {
    await this.deletion.deleteUnder(this.names.document(index, documentId));
  }

  async writeFile(index: string, documentId: string, fileName: string, content: StorageContent): Promise<number> {
    const blob = this.blob(index, documentId, fileName);
    const blobHTTPHeaders = { blobContentType: mimeTypeOf(fileName) };
    if (typeof content === 'string' || content instanceof Uint8Array) {
      const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      await this.withContainer(blob.name, () =>
        blob.uploadData(data, { blobHTTPHeaders, blockSize: this.blockBytes, concurrency: this.concurrency }),
      );
      return data.byteLength;
    }
    await this.ensureContainer();
    try {
      return await uploadStreamed(blob, content, { blockBytes: this.blockBytes, concurrency: this.concurrency, blobHTTPHeaders });
    } catch (error) {
      if (isContainerNotFound(error)) this.containerReady = undefined;
      throw isRestError(error) ? translateBlobError(error, `write of "${blob.name}"`) : error;
    }
  }

  async readFile(index: string, documentId: string, fileName: string): Promise<Buffer> {
    return (await this.readFileVersion(index, documentId, fileName)).data;
  }

  async readFileStream(index: string, documentId: string, fileName: string, range?: ByteRange): Promise<Readable> {
    const blob = this.blob(index, documentId, fileName);
    const count = range ? Math.max(0, range.end - range.start + 1) : undefined;
    if (count === 0) {
      if (!(await this.fileExists(index, documentId, fileName))) await this.download(blob, index, documentId, fileName);
      return Readable.from([]);
    }
    try {
      const answer = await this.download(blob, index, documentId, fileName, range?.start ?? 0, count);
      return bodyOf(answer, (e) => translateBlobError(e, `read of "${blob.name}"`));
    } catch (error) {
      if (range && isInvalidRange(error)) return Readable.from([]); // the range starts past the end of the file
      throw error;
    }
  }

  async readFileVersion(index: string, documentId: string, fileName: string): Promise<{ data: Buffer; version: string }> {
    const blob = this.blob(index, documentId, fileName);
    const answer = await this.download(blob, index, documentId, fileName);
    const chunks: Buffer[] = [];
    for await (const chunk of bodyOf(answer, (e) => translateBlobError(e, `read of "${blob.name}"`))) chunks.push(chunk as Buffer);
    return { data: Buffer.concat(chunks), version: answer.etag! };
  }

  async writeFileIfVersion(
    index: string,
    documentId: string,
    fileName: string,
    content: Uint8Array | string,
    version: string | null,
  ): Promise<string> {
    const blob = this.blob(index, documentId, fileName);
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const conditions = version === null ? { ifNoneMatch: '*' } : { ifMatch: version };
    try {
      const answer = await this.withContainer(blob.name, () =>
        blob.upload(data, data.byteLength, { conditions, blobHTTPHeaders: { blobContentType: mimeTypeOf(fileName) } }),
      );
      return answer.etag!;
    } catch (error) {
      // 412 ConditionNotMet (changed), 409 BlobAlreadyExists (created), 404 (deleted since it was
      // read); a 404 reaches here already translated by withContainer: look at what it wraps.
      const raw = error instanceof KmError && error.cause !== undefined ? error.cause : error;
      if (isConditionFailed(raw) || (version !== null && isNotFound(raw))) {
        throw writeConflict(index, documentId, fileName, 'azureblobs', error);
      }
      throw error;
    }
  }

  async fileExists(index: string, documentId: string, fileName: string): Promise<boolean> {
    const blob = this.blob(index, documentId, fileName);
    try {
      return await blob.exists();
    } catch (error) {
      throw translateBlobError(error, `check of "${blob.name}"`);
    }
  }

  async deleteFile(index: string, documentId: string, fileName: string): Promise<void> {
    const blob = this.blob(index, documentId, fileName);
    try {
      await blob.deleteIfExists();
    } catch (error) {
      if (!isNotFound(error)) throw translateBlobError(error, `delete of "${blob.name}"`);
    }
  }

  async listFiles(index: string, documentId: string): Promise<StoredFileInfo[]> {
    const folder = this.names.document(index, documentId);
    const files: StoredFileInfo[] = [];
    await this.list(folder, (item) => {
      if (item.kind !== 'blob') return;
      const name = this.names.childName(folder, item.name);
      if (name) files.push({ name, size: item.properties.contentLength ?? 0, lastModified: item.properties.lastModified });
    });
    return files.sort((a, b) => a.name.localeCompare(b.name));
  }

  async listDocuments(index: string): Promise<string[]> {
    const folder = this.names.index(index);
    const documents: string[] = [];
    await this.list(folder, (item) => {
      const name = item.kind === 'prefix' ? this.names.childName(folder, item.name) : undefined;
      if (name) documents.push(name);
    });
    return documents.sort();
  }

  async listIndexes(): Promise<string[]> {
    const indexes: string[] = [];
    await this.list(this.names.prefix, (item) => {
      const name = item.kind === 'prefix' ? this.names.indexOf(item.name) : undefined;
      if (name) indexes.push(name);
    });
    return indexes.sort();
  }

  /** Visits the blobs and sub-folders right under `prefix`, page after page; a missing container lists nothing. */
  private async list(prefix: string, visit: (item: ListedItem) => void): Promise<void> {
    try {
      for await (const item of this.container.listBlobsByHierarchy('/', { prefix })) visit(item as ListedItem);
    } catch (error) {
      if (isNotFound(error)) return;
      throw translateBlobError(error, `listing of "${prefix}"`);
    }
  }

  private async download(
    blob: BlockBlobClient,
    index: string,
    documentId: string,
    fileName: string,
    offset = 0,
    count?: number,
  ): Promise<BlobDownloadResponseParsed> {
    try {
      return await blob.download(offset, count);
    } catch (error) {
      if (isNotFound(error)) {
        throw new KmError('file_not_found', `file "${fileName}" of document "${documentId}" in index "${index}" not found`, {
          connector: 'azureblobs',
          cause: error,
        });
      }
      if (isInvalidRange(error)) throw error;
      throw translateBlobError(error, `read of "${blob.name}"`);
    }
  }

  /** Runs a write; when the container is missing (never created, or deleted since), creates it and runs it once more. */
  private async withContainer<T>(name: string, write: () => Promise<T>): Promise<T> {
    await this.ensureContainer();
    try {
      return await write();
    } catch (error) {
      if (!isContainerNotFound(error) || !this.createContainer) throw this.writeError(error, name);
      this.containerReady = undefined;
      await this.ensureContainer();
      return await write().catch((e: unknown) => Promise.reject(this.writeError(e, name)));
    }
  }

  private writeError(error: unknown, name: string): unknown {
    return isConditionFailed(error) ? error : translateBlobError(error, `write of "${name}"`);
  }

  /** Creates the container once per instance (when `createContainer`); a failure is retried on the next call. */
  private ensureContainer(): Promise<void> {
    if (!this.createContainer) return Promise.resolve();
    this.containerReady ??= this.container.createIfNotExists().then(
      () => undefined,
      (error: unknown) => {
        this.containerReady = undefined;
        throw translateBlobError(error, `creation of container "${this.container.containerName}"`);
      },
    );
    return this.containerReady;
  }

  private blob(index: string, documentId: string, fileName: string): BlockBlobClient {
    return this.container.getBlockBlobClient(this.names.file(index, documentId, fileName));
  }
}

type ListedItem =
  | { kind: 'prefix'; name: string }
  | { kind: 'blob'; name: string; properties: { contentLength?: number; lastModified: Date } };
