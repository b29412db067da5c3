import { InvalidInputError } from '../errors/km-error.js';
import { isNormalizedIndexName } from '../validation/index-name.js';
import { checkStorageNames } from './storage-names.js';

/**
 * Object names of a storage with a flat namespace (blobs, S3 keys): `{prefix}{index}/{documentId}/{file}`.
 * Every name is checked with {@link checkStorageNames} before a path is built, so no path can
 * reach another folder; the prefix must be plain path segments.
 *
 * ```ts
 * const paths = new StoragePaths('km/');
 * paths.file('notes', 'doc-1', 'a.txt'); // 'km/notes/doc-1/a.txt'
 * paths.childName('km/notes/', 'km/notes/doc-1/'); // 'doc-1'
 * ```
 */
export class StoragePaths {
  constructor(readonly prefix: string) {
    if (
      typeof prefix !== 'string' ||
      prefix.startsWith('/') ||
      prefix.includes('\\') ||
      prefix.includes('//') ||
      /(^|\/)\.\.?(\/|$)/.test(prefix)
    ) {
      throw new InvalidInputError('invalid_argument', `storage prefix ${JSON.stringify(prefix)} must be plain path segments, e.g. "km/"`);
    }
  }

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

  /** The name after `parent` of an object or folder listed directly under it (trailing `/` removed), or undefined. */
  childName(parent: string, name: string): string | undefined {
    if (!name.startsWith(parent)) return undefined;
    const rest = name.slice(parent.length).replace(/\/$/, '');
    return rest === '' || rest.includes('/') ? undefined : rest;
  }

  /** The index of a listed `{prefix}{index}/` folder, or undefined for names that are not km index folders. */
  indexOf(folder: string): string | undefined {
    const name = this.childName(this.prefix, folder);
    return name !== undefined && isNormalizedIndexName(name) ? name : undefined;
  }
}
