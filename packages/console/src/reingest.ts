import type { ApiClient } from './api-client.js';
import type { DocumentSummary, UploadAccepted } from '@km/wire';
import { tagStrings } from './document-tags.js';

/**
 * Ingests a document again, in the browser: downloads its uploaded files as Blobs and uploads
 * them with the same document id, tags and steps (the service replaces the document).
 */
export async function reingestDocument(api: ApiClient, document: DocumentSummary): Promise<UploadAccepted> {
  if (document.files.length === 0) throw new Error(`the document "${document.documentId}" has no uploaded file to ingest again`);
  const files = await Promise.all(
    document.files.map(async (file) => {
      const blob = await api.download(document.index, document.documentId, file.name);
      return new File([blob], file.name, { type: file.mimeType || blob.type });
    }),
  );
  return api.upload({
    index: document.index,
    documentId: document.documentId,
    tags: tagStrings(document.tags),
    steps: document.steps,
    files,
  });
}
