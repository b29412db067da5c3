import { InvalidInputError } from '../errors/km-error.js';
import { validateDocumentId } from '../validation/document-id.js';
import { validateFileName } from '../validation/file-name.js';
import { normalizeIndexName } from '../validation/index-name.js';

/**
 * Checks the names that address content storage, so none can escape its folder:
 * the index must already be normalised, the document id and file name valid segments.
 */
export function checkStorageNames(index: string, documentId?: string, fileName?: string): void {
  if (normalizeIndexName(index) !== index) {
    throw new InvalidInputError('invalid_index_name', `index name ${JSON.stringify(index)} is not normalised`);
  }
  if (documentId !== undefined) validateDocumentId(documentId);
  if (fileName !== undefined) validateFileName(fileName);
}
