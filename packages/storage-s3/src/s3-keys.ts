import { checkStorageNames } from '@km/core/connector';

/**
 * Object keys of the layout `{prefix}{index}/{documentId}/{fileName}`. Every name is checked with
 * `checkStorageNames` before a key is built, so none can reach another folder.
 *
 * ```ts
 * new S3Keys('km/').file('notes', 'doc-1', 'a.txt'); // 'km/notes/doc-1/a.txt'
 * ```
 */
export class S3Keys {
  constructor(readonly prefix: string) {}

  /** `{prefix}{index}/`: every object of an index. */
  index(index: string): string {
    checkStorageNames(index);
    return `${this.prefix}${index}/`;
  }

  /** `{prefix}{index}/{documentId}/`: every object of a document. */
  document(index: string, documentId: string): string {
    checkStorageNames(index, documentId);
    return `${this.prefix}${index}/${documentId}/`;
  }

  /** `{prefix}{index}/{documentId}/{fileName}`. */
  file(index: string, documentId: string, fileName: string): string {
    checkStorageNames(index, documentId, fileName);
    return `${this.prefix}${index}/${documentId}/${fileName}`;
  }

  /** The name after `parent` of a key or common prefix listed under it (its trailing `/` removed), or undefined when there is none. */
  static childName(parent: string, key: string): string | undefined {
    if (!key.startsWith(parent)) return undefined;
    const rest = key.slice(parent.length).replace(/\/$/, '');
    return rest === '' || rest.includes('/') ? undefined : rest;
  }
}
