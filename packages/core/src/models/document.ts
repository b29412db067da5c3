import type { Readable } from 'node:stream';
import { InvalidInputError } from '../errors/km-error.js';
import { newDocumentId, validateDocumentId } from '../validation/document-id.js';
import { baseName, validateFileName } from '../validation/file-name.js';
import { addTag, validateTagKey, type TagCollection } from './tag-collection.js';

/** Content of one file to import: a path on disk, bytes, or a stream. */
export type DocumentFileSource =
  | { name: string; path: string; mimeType?: string }
  | { name: string; data: Uint8Array | string; mimeType?: string }
  | { name: string; stream: Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>; mimeType?: string };

/**
 * A document to import: an id, tags, and one or more files.
 *
 * ```ts
 * const doc = new Document('report-2024')
 *   .addTag('user', 'alice')
 *   .addFile('./report.md')
 *   .addBuffer('notes.txt', Buffer.from('...'));
 * await memory.importDocument(doc);
 * ```
 */
export class Document {
  readonly id: string;
  readonly tags: TagCollection = {};
  readonly files: DocumentFileSource[] = [];

  /** A document with the given id (validated), or a random one. */
  constructor(id?: string, tags?: TagCollection) {
    this.id = id === undefined || id === '' ? newDocumentId() : validateDocumentId(id);
    if (tags) for (const [key, values] of Object.entries(tags)) for (const v of values) this.addTag(key, v);
  }

  /** Adds a user tag; keys starting with `__` are reserved. */
  addTag(key: string, value: string | null): this {
    addTag(this.tags, validateTagKey(key), value);
    return this;
  }

  /** Adds a file from disk; its name is the path's last segment unless given. */
  addFile(path: string, name?: string, mimeType?: string): this {
    return this.add({ name: name ?? baseName(path), path, ...(mimeType ? { mimeType } : {}) });
  }

  /** Adds a file from bytes or a string. */
  addBuffer(name: string, data: Uint8Array | string, mimeType?: string): this {
    return this.add({ name, data, ...(mimeType ? { mimeType } : {}) });
  }

  /** Adds a file from a stream. */
  addStream(name: string, stream: Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, mimeType?: string): this {
    return this.add({ name, stream, ...(mimeType ? { mimeType } : {}) });
  }

  private add(file: DocumentFileSource): this {
    validateFileName(file.name, { uploaded: true });
    if (this.files.some((f) => f.name === file.name)) {
      throw new InvalidInputError('invalid_file_name', `document "${this.id}" already has a file named "${file.name}"`);
    }
    this.files.push(file);
    return this;
  }
}
