import type { Readable } from 'node:stream';
import { GetObjectCommand, type _Object } from '@aws-sdk/client-s3';
import { InvalidInputError, KmError, type SyncItem, type SyncSource, type TagCollection } from '@km/core';
import { cloneTags, validateTags } from '@km/core/connector';
import { resolveS3Settings, type S3ContentStorageOptions, type S3Settings } from './s3-config.js';
import { isMissingObject, translateS3Error } from './s3-errors.js';
import { listPages } from './s3-listing.js';
import { translatedStream } from './s3-read-stream.js';
import { syncFileName } from './sync-file-name.js';
import { syncKeyFilter } from './sync-key-filter.js';

const OWNER = 's3Source';

/** An object the source leaves out of its listing, and why. */
export interface SkippedS3Object {
  /** Its item id: the key relative to the prefix. */
  id: string;
  key: string;
  /** Its size in bytes. */
  size: number;
  /** `too_large`: over `maxObjectBytes`. */
  reason: 'too_large';
}

/**
 * Options of {@link s3Source}. Reach the bucket with `client` (an `S3Client` of your own, left open
 * by `close()`), or with the connection options of `S3ContentStorage` (`endpoint`, `region`,
 * `forcePathStyle`, `accessKeyId` + `secretAccessKey`, `sessionToken`).
 */
export interface S3SourceOptions
  extends Pick<
    S3ContentStorageOptions,
    'client' | 'endpoint' | 'region' | 'forcePathStyle' | 'accessKeyId' | 'secretAccessKey' | 'sessionToken'
  > {
  /** The bucket. Required. */
  bucket: string;
  /**
   * The "folder" to sync, e.g. `docs/handbook`: only keys under it are listed, and item ids are
   * keys relative to it. A `/` is added when missing (`docs` syncs `docs/…`, not `docs-old/…`).
   * @default '' (the whole bucket)
   */
  prefix?: string;
  /** Globs on the key relative to the prefix, e.g. `['**\/*.md']`; none or `[]` takes every key. @default every key */
  include?: string[];
  /** Globs on the key relative to the prefix that are left out, e.g. `['drafts/**']`. @default none */
  exclude?: string[];
  /** Objects larger than this many bytes are left out (and reported to `onSkip`). @default no limit */
  maxObjectBytes?: number;
  /** Called for each object left out by `maxObjectBytes`. Must not throw. */
  onSkip?: (skipped: SkippedS3Object) => void;
  /** Keys asked for per `ListObjectsV2` page (S3 answers at most 1000). @default 1000 */
  pageSize?: number;
  /** The source id, instead of `s3://{bucket}/{prefix}`. Documents synced from it carry this id. */
  id?: string;
  /** Tags of every item (user tags: keys starting with `__` are refused). */
  tags?: TagCollection;
}

/**
 * A sync source over the objects of an S3 (or S3-compatible) bucket under a prefix. Item ids are
 * keys relative to the prefix; versions are ETags (an ETag changes when the content does; a
 * multipart upload's `…-N` ETag too, and it stays the same while the object is not rewritten).
 * "Folder" markers (keys ending in `/`) are left out. Errors are km errors: a missing bucket is
 * `not_configured`, refused credentials `unauthorized`, network failures `transient`.
 *
 * ```ts
 * const report = await memory.sync(s3Source({ bucket: 'team-docs', prefix: 'handbook/', include: ['**\/*.md'] }));
 * ```
 */
export function s3Source(options: S3SourceOptions): S3SyncSource {
  return new S3SyncSource(options);
}

/** The source {@link s3Source} returns. */
export class S3SyncSource implements SyncSource {
  readonly id: string;
  readonly kind = 's3';
  /** The listed prefix, `''` or ending in `/`. */
  readonly prefix: string;
  readonly bucket: string;
  private readonly settings: S3Settings;
  private readonly taken: (relativeKey: string) => boolean;
  private readonly maxObjectBytes: number | undefined;
  private readonly pageSize: number | undefined;
  private readonly tags: TagCollection | undefined;
  private readonly onSkip: ((skipped: SkippedS3Object) => void) | undefined;

  constructor(options: S3SourceOptions) {
    const fail = (message: string): never => {
      throw new InvalidInputError('invalid_argument', `${OWNER}: ${message}`, { connector: 's3' });
    };
    if (options === null || typeof options !== 'object') fail('options are required');
    const prefix = options.prefix ?? '';
    if (typeof prefix !== 'string') fail('prefix must be a string');
    const { maxObjectBytes, pageSize, id } = options;
    if (maxObjectBytes !== undefined && !(Number.isInteger(maxObjectBytes) && maxObjectBytes >= 0))
      fail('maxObjectBytes must be an integer >= 0');
    if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000))
      fail('pageSize must be an integer from 1 to 1000');
    if (id !== undefined && (typeof id !== 'string' || id.trim() === '')) fail('id must be a non-empty string');
    this.taken = syncKeyFilter(options.include, options.exclude, OWNER);
    // resolveS3Settings checks the bucket name and the prefix, and builds the client unless one is given.
    this.settings = resolveS3Settings(
      {
        ...pickConnection(options),
        bucket: options.bucket,
        prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
      },
      OWNER,
    );
    this.bucket = this.settings.bucket;
    this.prefix = this.settings.prefix;
    this.id = id ?? `s3://${this.bucket}/${this.prefix}`;
    this.maxObjectBytes = maxObjectBytes;
    this.pageSize = pageSize;
    this.tags = options.tags === undefined ? undefined : validateTags(options.tags);
    this.onSkip = options.onSkip;
  }

  /** Every object under the prefix that the globs and the size limit take, page after page. Throws when a page fails. */
  async *list(signal?: AbortSignal): AsyncIterable<SyncItem> {
    const { client, bucket } = this.settings;
    const pages = listPages(client, bucket, this.prefix, undefined, { pageSize: this.pageSize, signal });
    while (true) {
      let next: IteratorResult<{ objects: _Object[] }>;
      try {
        signal?.throwIfAborted();
        next = await pages.next();
      } catch (error) {
        throw this.error(error, `listing of "${this.prefix}"`, signal);
      }
      if (next.done) return;
      for (const object of next.value.objects) {
        const item = this.itemOf(object);
        if (item) yield item;
      }
    }
  }

  /** Destroys the client's sockets when the source built it. */
  async close(): Promise<void> {
    if (this.settings.ownsClient) this.settings.client.destroy();
  }

  private itemOf(object: _Object): SyncItem | undefined {
    const key = object.Key;
    if (!key?.startsWith(this.prefix) || key.endsWith('/')) return undefined; // a "folder" marker
    const id = key.slice(this.prefix.length);
    if (!this.taken(id)) return undefined;
    const size = object.Size ?? 0;
    if (this.maxObjectBytes !== undefined && size > this.maxObjectBytes) {
      try {
        this.onSkip?.({ id, key, size, reason: 'too_large' });
      } catch {
        // onSkip must not throw; if it does, the listing goes on.
      }
      return undefined;
    }
    return {
      id,
      version: versionOf(object),
      fileName: syncFileName(id),
      ...(this.tags ? { tags: cloneTags(this.tags) } : {}),
      open: (signal) => this.open(key, signal),
    };
  }

  private async open(key: string, signal?: AbortSignal): Promise<Uint8Array | Readable> {
    const { client, bucket } = this.settings;
    let body: Readable | undefined;
    try {
      signal?.throwIfAborted();
      const output = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), signal ? { abortSignal: signal } : {});
      body = output.Body as Readable | undefined;
    } catch (error) {
      if (!signal?.aborted && isMissingObject(error)) {
        throw new KmError('file_not_found', `object "${key}" of bucket "${bucket}" is gone (deleted since the listing?)`, {
          connector: 's3',
          cause: error,
        });
      }
      throw this.error(error, `read of "${key}"`, signal);
    }
    return body ? translatedStream(body, (error) => translateS3Error(error, bucket)) : new Uint8Array();
  }

  private error(error: unknown, what: string, signal: AbortSignal | undefined): KmError {
    if (signal?.aborted) return new KmError('aborted', `${OWNER} ${this.id}: ${what} aborted`, { connector: 's3', cause: error });
    const translated = translateS3Error(error, this.bucket);
    // The storage's message suggests createBucket, which a source does not have.
    if (translated.code === 'not_configured') {
      return new KmError('not_configured', `bucket "${this.bucket}" does not exist`, { connector: 's3', cause: error });
    }
    return translated;
  }
}

/** The version of a listed object: its ETag without quotes; size and modification time when a server gives no ETag. */
function versionOf(object: _Object): string {
  const etag = object.ETag?.replace(/^(W\/)?"(.*)"$/, '$2');
  if (etag) return etag;
  return `${object.Size ?? 0}@${object.LastModified?.toISOString() ?? ''}`;
}

function pickConnection(options: S3SourceOptions): Partial<S3ContentStorageOptions> {
  const { client, endpoint, region, forcePathStyle, accessKeyId, secretAccessKey, sessionToken } = options;
  return { client, endpoint, region, forcePathStyle, accessKeyId, secretAccessKey, sessionToken };
}
