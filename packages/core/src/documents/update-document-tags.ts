import type { DocumentSummary } from '@km/wire';
import type { IMemoryDb } from '../contracts/memory-db.js';
import { KmError, isKmError } from '../errors/km-error.js';
import type { TagCollection } from '../models/tag-collection.js';
import type { PipelineStatusStore } from '../pipeline/pipeline-status-store.js';
import { documentStateOf, toDocumentSummary } from './document-summary.js';
import { retagDocumentRecords, withOwnTags } from './retag-document-records.js';

/** Attempts when another writer changes the document's state between our read and write. */
const WRITE_ATTEMPTS = 3;

/**
 * Replaces a document's own tags (km's reserved `__` tags are kept) without ingesting it again: its state first (so that a later
 * re-run of `save_records` writes the new tags), then its records in every memory DB. A
 * document being ingested or deleted is refused (`document_busy`): its records are still being
 * written. Running it again after a failure finishes the job (it is idempotent).
 */
export async function updateDocumentTags(
  statusStore: PipelineStatusStore,
  memoryDbs: readonly IMemoryDb[],
  index: string,
  documentId: string,
  tags: TagCollection,
): Promise<DocumentSummary> {
  for (let attempt = 1; ; attempt++) {
    const pipeline = await statusStore.read(index, documentId);
    if (!pipeline) throw new KmError('document_not_found', `document "${documentId}" not found in index "${index}"`);
    const { state } = documentStateOf(pipeline);
    if (state === 'in_progress' || state === 'deleting') {
      throw new KmError(
        'document_busy',
        `document "${documentId}" is ${state === 'deleting' ? 'being deleted' : 'being ingested'}: change its tags once that is done`,
      );
    }
    // km's own (`__`) tags stay: a re-tagged synced document keeps its sync source, item and version.
    pipeline.tags = withOwnTags(pipeline.tags, tags);
    try {
      await statusStore.write(pipeline);
    } catch (error) {
      if (isKmError(error, 'write_conflict') && attempt < WRITE_ATTEMPTS) continue;
      throw error;
    }
    for (const db of memoryDbs) await retagDocumentRecords(db, index, documentId, tags);
    return toDocumentSummary(pipeline);
  }
}
