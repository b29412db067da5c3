/** The status URL of a document, as KM's `Location` header gives it. */
export function uploadStatusLocation(index: string, documentId: string): string {
  return `/upload-status?index=${encodeURIComponent(index)}&documentId=${encodeURIComponent(documentId)}`;
}
