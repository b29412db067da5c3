import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, IContentStorage, StorageContent, StoredFileInfo } from '../contracts/content-storage.js';
import { KmError } from '../errors/km-error.js';
import { contentToReadable } from '../util/streams.js';
import { checkStorageNames } from './storage-names.js';

const TEMP_DIR = '.km-tmp';

/** Options of {@link DiskContentStorage}. */
export interface DiskContentStorageOptions {
  /** Root folder; created when missing. */
  directory: string;
  /** fsync files before renaming them into place, so a crash never leaves a torn file. @default true */
  durable?: boolean;
}

/**
 * Content storage in a folder on disk: `{directory}/{index}/{documentId}/{file}`. Writes go
 * to a temporary file that is renamed into place, so readers never see half a file.
 *
 * ```ts
 * const storage = new DiskContentStorage({ directory: './km-data/files' });
 * ```
 */
export class DiskContentStorage implements IContentStorage {
  private readonly root: string;
  /** The folder holding the files (absolute). */
  readonly location: string;
  private readonly durable: boolean;

  constructor(options: DiskContentStorageOptions) {
    this.root = resolve(options.directory);
    this.location = this.root;
    this.durable = options.durable ?? true;
  }

  async createIndexDirectory(index: string): Promise<void> {
    await mkdir(this.path(index), { recursive: true });
  }

  async deleteIndexDirectory(index: string): Promise<void> {
    await rm(this.path(index), { recursive: true, force: true });
  }

  async createDocumentDirectory(index: string, documentId: string): Promise<void> {
    await mkdir(this.path(index, documentId), { recursive: true });
  }

  async deleteDocumentDirectory(index: string, documentId: string): Promise<void> {
    await rm(this.path(index, documentId), { recursive: true, force: true });
  }

  async emptyDocumentDirectory(index: string, documentId: string): Promise<void> {
    for (const file of await this.listFiles(index, documentId)) await this.deleteFile(index, documentId, file.name);
  }

  async writeFile(index: string, documentId: string, fileName: string, content: StorageContent): Promise<number> {
    const target = this.path(index, documentId, fileName);
    const tempDir = join(this.root, TEMP_DIR);
    await mkdir(tempDir, { recursive: true });
    await mkdir(this.path(index, documentId), { recursive: true });
    const temp = join(tempDir, `${randomUUID()}.tmp`);
    try {
      await pipeline(contentToReadable(content), createWriteStream(temp));
      if (this.durable) {
        const handle = await open(temp, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    return (await stat(target)).size;
  }

  async readFile(index: string, documentId: string, fileName: string): Promise<Buffer> {
    const path = this.path(index, documentId, fileName);
    try {
      return await readFile(path);
    } catch (error) {
      throw this.translate(error, index, documentId, fileName);
    }
  }

  readonly supportsByteRanges: boolean = true;

  async readFileStream(index: string, documentId: string, fileName: string, range?: ByteRange): Promise<Readable> {
    const path = this.path(index, documentId, fileName);
    try {
      const info = await stat(path);
      if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
    } catch (error) {
      throw this.translate(error, index, documentId, fileName);
    }
    return range ? createReadStream(path, { start: range.start, end: range.end }) : createReadStream(path);
  }

  async fileExists(index: string, documentId: string, fileName: string): Promise<boolean> {
    try {
      return (await stat(this.path(index, documentId, fileName))).isFile();
    } catch {
      return false;
    }
  }

  async deleteFile(index: string, documentId: string, fileName: string): Promise<void> {
    await rm(this.path(index, documentId, fileName), { force: true });
  }

  async listFiles(index: string, documentId: string): Promise<StoredFileInfo[]> {
    const dir = this.path(index, documentId);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const files: StoredFileInfo[] = [];
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const info = await stat(join(dir, entry.name)).catch(() => undefined);
      if (info) files.push({ name: entry.name, size: info.size, lastModified: info.mtime });
    }
    return files.sort((a, b) => a.name.localeCompare(b.name));
  }

  async listDocuments(index: string): Promise<string[]> {
    const entries = await readdir(this.path(index), { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  }

  async listIndexes(): Promise<string[]> {
    const entries = await readdir(this.root, { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  }

  private path(index: string, documentId?: string, fileName?: string): string {
    checkStorageNames(index, documentId, fileName);
    const parts = [index, documentId, fileName].filter((p): p is string => p !== undefined);
    const full = resolve(this.root, ...parts);
    if (!full.startsWith(this.root + sep)) {
      throw new KmError('invalid_file_name', `path ${JSON.stringify(parts.join('/'))} escapes the storage folder`);
    }
    return full;
  }

  private translate(error: unknown, index: string, documentId: string, fileName: string): unknown {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') {
      return new KmError('file_not_found', `file "${fileName}" of document "${documentId}" in index "${index}" not found`, {
        cause: error,
      });
    }
    return error;
  }
}
