import { InvalidInputError } from '@km/core';
import { checkStorageNames, isNormalizedIndexName } from '@km/core/connector';

/**
 * Blob names of the layout `{prefix}{index}/{documentId}/{file}`. Every name is checked with
 * `checkStorageNames` before it is used, so no blob name can reach outside its folder.
 */
export class BlobNames {
  constructor(readonly prefix: string) {
    if (prefix.startsWith('/') || prefix.includes('\\') || prefix.includes('//') || /(^|\/)\.\.?(\/|$)/.test(prefix)) {
      throw new InvalidInputError(
        'invalid_argument',
        `Azure Blobs prefix ${JSON.stringify(prefix)} must be plain path segments, e.g. "km/"`,
      );
    }
  }

  /** `{prefix}{index}/` */
  index(index: string): string {
    checkStorageNames(index);
    return `${this.prefix}${index}/`;
  }

  /** `{prefix}{index}/{documentId}/` */
  document(index: string, documentId: string): string {
    checkStorageNames(index, documentId);
    return `${this.prefix}${index}/${documentId}/`;
  }

  /** `{prefix}{index}/{documentId}/{fileName}` */
  file(index: string, documentId: string, fileName: string): string {
    checkStorageNames(index, documentId, fileName);
    return `${this.prefix}${index}/${documentId}/${fileName}`;
  }

  /** The index of a listed `{prefix}{index}/` folder, or undefined for names that are not km index folders. */
  indexOf(folder: string): string | undefined {
    const name = this.lastSegment(folder, this.prefix);
    return name !== undefined && isNormalizedIndexName(name) ? name : undefined;
  }

  /** The last segment of a listed folder (`…/{segment}/`) or blob name under `parent`. */
  lastSegment(name: string, parent: string): string | undefined {
    if (!name.startsWith(parent)) return undefined;
    const rest = name.slice(parent.length).replace(/\/$/, '');
    return rest && !rest.includes('/') ? rest : undefined;
  }
}
