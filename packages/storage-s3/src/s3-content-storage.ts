import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, type GetObjectCommandOutput, HeadObjectCommand } from '@aws-sdk/client-s3';
import { type ByteRange, type IContentStorage, InvalidInputError, type StorageContent, type StoredFileInfo } from '@km/core';
import { StoragePaths, isNormalizedIndexName } from '@km/core/connector';
import { ensureBucket } from './s3-bucket.js';
import { putIfVersion } from './s3-conditional-put.js';
import { resolveS3Settings, type S3ContentStorageOptions, type S3Settings } from './s3-config.js';
import {
  conditionalConflict,
  fileNotFound,
  isConditionalConflict,
  isMissingObject,
  isUnsatisfiableRange,
  translateS3Error,
} from './s3-errors.js';
import { translatedStream } from './s3-read-stream.js';
import { type DeleteMode, deleteUnder } from './s3-delete.js';
import { listPages } from './s3-listing.js';
import { SourceStreamError, uploadContent } from './s3-upload.js';

/**
 * Content storage in one S3 bucket (AWS S3, MinIO, Cloudflare R2 and other S3-compatible servers):
 * objects `{prefix}{index}/{documentId}/{fileName}`. Folders are not objects: an index or a document
 * exists while it holds a file. Streams go up as multipart uploads; reads use ranged GetObject.
 * With `conditionalWrites` on (the default on AWS S3) the instance has `readFileVersion` and
 * `writeFileIfVersion` (ETags, `If-Match` / `If-None-Match: *`); with it off it has neither.
 *
 * ```ts
 * const storage = new S3ContentStorage({ bucket: 'km-files', region: 'eu-west-1' });
 * const minio = new S3ContentStorage({
 *   bucket: 'km', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true, conditionalWrites: true,
 *   accessKeyId: 'minioadmin', secretAccessKey: 'minioadmin', createBucket: true,
 * });
 * ```
 */
export class S3ContentStorage implements IContentStorage {
  private readonly settings: S3Settings;
  private readonly keys: StoragePaths;
  private bucketReady: Promise<void> | undefined;
  private readonly deleteMode: DeleteMode;

  readonly supportsByteRanges: boolean = true;
  /** Present only when `conditionalWrites` is on. */
  declare readonly readFileVersion?: (index: string, documentId: string, fileName: string) => Promise<{ data: Buffer; version: string }>;
  /** Present only when `conditionalWrites` is on. */
  declare readonly writeFileIfVersion?: (
    index: string,
    documentId: string,
    fileName: string,
    content: Uint8Array | string,
    version: string | null,
  ) => Promise<string>;

  constructor(options: S3ContentStorageOptions) {
    this.settings = resolveS3Settings(options);
    this.keys = new StoragePaths(this.settings.prefix);
    this.deleteMode = { contentMd5: this.settings.customEndpoint, singleDeletes: false };
    if (this.settings.conditionalWrites) {
      const self = this as { -readonly [K in 'readFileVersion' | 'writeFileIfVersion']: S3ContentStorage[K] };
      self.readFileVersion = (index, documentId, fileName) => this.readVersioned(index, documentId, fileName);
      self.writeFileIfVersion = (index, documentId, fileName, content, version) =>
        this.writeIfVersion(index, documentId, fileName, content, version);
    }
  }

  /** True when this instance offers conditional writes. */
  get conditionalWrites(): boolean {
    return this.settings.conditionalWrites;
  }

  async createIndexDirectory(index: string): Promise<void> {
    this.keys.index(index); // S3 has no folders: the index appears with its first file
    await this.ready();
  }

  async deleteIndexDirectory(index: string): Promise<void> {
    const prefix = this.keys.index(index);
    await this.call(() => deleteUnder(this.settings.client, this.settings.bucket, prefix, this.deleteMode));
  }

  async createDocumentDirectory(index: string, documentId: string): Promise<void> {
    this.keys.document(index, documentId);
    await this.ready();
  }

  async deleteDocumentDirectory(index: string, documentId: string): Promise<void> {
    const prefix = this.keys.document(index, documentId);
    await this.call(() => deleteUnder(this.settings.client, this.settings.bucket, prefix, this.deleteMode));
  }

  async emptyDocumentDirectory(index: string, documentId: string): Promise<void> {
    await this.deleteDocumentDirectory(index, documentId);
  }

  async writeFile(index: string, documentId: string, fileName: string, content: StorageContent): Promise<number> {
    const key = this.keys.file(index, documentId, fileName);
    await this.ready();
    const { client, bucket, partSizeBytes, queueSize } = this.settings;
    try {
      return await uploadContent({ client, bucket, key, partSizeBytes, queueSize }, content);
    } catch (error) {
      if (error instanceof SourceStreamError) throw error.original;
      throw translateS3Error(error, bucket);
    }
  }

  async readFile(index: string, documentId: string, fileName: string): Promise<Buffer> {
    return (await this.getObject(index, documentId, fileName)).data;
  }

  async readFileStream(index: string, documentId: string, fileName: string, range?: ByteRange): Promise<Readable> {
    const key = this.keys.file(index, documentId, fileName);
    if (range && !(Number.isInteger(range.start) && Number.isInteger(range.end) && range.start >= 0 && range.end >= range.start)) {
      throw new InvalidInputError('invalid_argument', `byte range ${JSON.stringify(range)} must have integers 0 <= start <= end`);
    }
    let output: GetObjectCommandOutput;
    try {
      output = await this.settings.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
    } catch (error) {
      if (range && isUnsatisfiableRange(error)) return Readable.from([]); // the range starts past the end
      throw this.readError(error, index, documentId, fileName);
    }
    const body = output.Body as Readable | undefined;
    return body ? translatedStream(body, (error) => translateS3Error(error, this.settings.bucket)) : Readable.from([]);
  }

  async fileExists(index: string, documentId: string, fileName: string): Promise<boolean> {
    const key = this.keys.file(index, documentId, fileName);
    try {
      await this.settings.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isMissingObject(error)) return false;
      throw translateS3Error(error, this.settings.bucket);
    }
  }

  async deleteFile(index: string, documentId: string, fileName: string): Promise<void> {
    const key = this.keys.file(index, documentId, fileName);
    await this.call(() => this.settings.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key })));
  }

  async listFiles(index: string, documentId: string): Promise<StoredFileInfo[]> {
    const prefix = this.keys.document(index, documentId);
    const files: StoredFileInfo[] = [];
    await this.call(async () => {
      for await (const { objects } of listPages(this.settings.client, this.settings.bucket, prefix, '/')) {
        for (const o of objects) {
          const name = o.Key ? this.keys.childName(prefix, o.Key) : undefined;
          if (name !== undefined) files.push({ name, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) });
        }
      }
    });
    return files.sort((a, b) => a.name.localeCompare(b.name));
  }

  async listDocuments(index: string): Promise<string[]> {
    return (await this.foldersUnder(this.keys.index(index))).sort();
  }

  /**
   * Ids after `after`, from S3's own key order (UTF-8 bytes, which is id order: ids are ASCII).
   * The listing starts after `{index}/{after}0`: every key of document `after` (`…/{after}/…`,
   * `/` sorting before `0`) comes before it, every later id after it.
   */
  async listDocumentsAfter(index: string, after: string | undefined, limit: number): Promise<string[]> {
    const prefix = this.keys.index(index);
    const startAfter = after === undefined ? undefined : `${this.keys.document(index, after).slice(0, -1)}0`;
    const names: string[] = [];
    if (limit <= 0) return names;
    await this.call(async () => {
      const pages = listPages(this.settings.client, this.settings.bucket, prefix, '/', { startAfter, pageSize: Math.min(1000, limit + 1) });
      for await (const { folders } of pages) {
        for (const folder of folders) {
          const name = this.keys.childName(prefix, folder);
          if (name !== undefined && (after === undefined || name > after)) names.push(name);
        }
        if (names.length >= limit) break;
      }
    });
    return names.sort().slice(0, limit);
  }

  async listIndexes(): Promise<string[]> {
    return (await this.foldersUnder(this.settings.prefix)).filter(isNormalizedIndexName).sort();
  }

  /** Closes the client's connections when this storage built the client (not one you gave it). */
  async close(): Promise<void> {
    if (this.settings.ownsClient) this.settings.client.destroy();
  }

  private async readVersioned(index: string, documentId: string, fileName: string): Promise<{ data: Buffer; version: string }> {
    const { data, etag } = await this.getObject(index, documentId, fileName);
    if (!etag)
      throw translateS3Error(Object.assign(new Error('GetObject returned no ETag'), { name: 'MissingETag' }), this.settings.bucket);
    return { data, version: etag };
  }

  private async writeIfVersion(
    index: string,
    documentId: string,
    fileName: string,
    content: Uint8Array | string,
    version: string | null,
  ): Promise<string> {
    const key = this.keys.file(index, documentId, fileName);
    await this.ready();
    try {
      return await putIfVersion(this.settings.client, this.settings.bucket, key, content, version);
    } catch (error) {
      // If-Match on an object deleted since it was read answers 404: stale as well.
      if (isConditionalConflict(error) || (version !== null && isMissingObject(error))) {
        throw conditionalConflict(error, index, documentId, fileName);
      }
      throw translateS3Error(error, this.settings.bucket);
    }
  }

  private async getObject(index: string, documentId: string, fileName: string): Promise<{ data: Buffer; etag: string | undefined }> {
    const key = this.keys.file(index, documentId, fileName);
    try {
      const output = await this.settings.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      const bytes = output.Body ? await output.Body.transformToByteArray() : new Uint8Array();
      return { data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), etag: output.ETag };
    } catch (error) {
      throw this.readError(error, index, documentId, fileName);
    }
  }

  private readError(error: unknown, index: string, documentId: string, fileName: string): Error {
    return isMissingObject(error) ? fileNotFound(index, documentId, fileName, error) : translateS3Error(error, this.settings.bucket);
  }

  private async foldersUnder(prefix: string): Promise<string[]> {
    const names: string[] = [];
    await this.call(async () => {
      for await (const { folders } of listPages(this.settings.client, this.settings.bucket, prefix, '/')) {
        for (const folder of folders) {
          const name = this.keys.childName(prefix, folder);
          if (name !== undefined) names.push(name);
        }
      }
    });
    return names;
  }

  /** Runs an S3 call, translating its errors. */
  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw translateS3Error(error, this.settings.bucket);
    }
  }

  /** With `createBucket`, creates the bucket once when it is missing (retried on the next call after a failure). */
  private ready(): Promise<void> {
    if (!this.settings.createBucket) return Promise.resolve();
    const { client, bucket, region } = this.settings;
    this.bucketReady ??= ensureBucket(client, bucket, region).catch((error: unknown) => {
      this.bucketReady = undefined;
      throw translateS3Error(error, this.settings.bucket);
    });
    return this.bucketReady;
  }
}
