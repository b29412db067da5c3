import { z } from 'zod';

/** Tags of a passage (the document's own tags; km's reserved `__` tags left out). */
const tagsOutput = z.record(z.string(), z.array(z.string().nullable()));

/** One matching passage of a source. */
export const passageOutput = z.object({
  text: z.string().describe('The passage text.'),
  relevance: z.number().describe('How relevant the passage is to the query: cosine similarity (0 to 1) or lexical score.'),
  partitionNumber: z.number().int().describe('Position of the passage in the file (0-based).'),
  page: z.number().int().optional().describe('Page of the PDF the passage comes from (1-based).'),
  section: z.number().int().optional().describe('Section of the file the passage comes from, for formats that have sections.'),
  lastUpdate: z.string().describe('When the passage was stored (ISO 8601).'),
  tags: tagsOutput.describe('Tags of the document.'),
});

/** One source file of a search result, with its matching passages. */
export const citationOutput = z.object({
  documentId: z.string(),
  index: z.string(),
  fileId: z.string(),
  fileName: z.string().describe('Name of the source file, or of the web page file.'),
  contentType: z.string(),
  link: z.string().describe('Stable reference to the file: {index}/{documentId}/{fileId} (the service serves it at /download).'),
  sourceUrl: z.string().optional().describe('Address of the web page, for imported URLs.'),
  partitions: z.array(passageOutput),
});

/** Structured result of `search`. */
export const searchOutput = {
  query: z.string(),
  noResult: z.boolean().describe('True when nothing matched.'),
  results: z.array(citationOutput).describe('Matching sources, most relevant first, each with its passages.'),
};

/** One source an answer was drawn from. */
export const answerSourceOutput = z.object({
  documentId: z.string(),
  index: z.string(),
  fileName: z.string(),
  contentType: z.string(),
  link: z.string(),
  sourceUrl: z.string().optional(),
  pages: z.array(z.number().int()).optional().describe('PDF pages the facts came from.'),
  sections: z.array(z.number().int()).optional().describe('Sections the facts came from, for formats that have sections.'),
  relevance: z.number().describe('Relevance of the best passage of this source.'),
});

/** Structured result of `ask`. */
export const askOutput = {
  question: z.string(),
  answer: z.string().describe('The answer, drawn only from the stored documents.'),
  noResult: z.boolean().describe('True when memory held nothing relevant: the answer then says so.'),
  noResultReason: z.string().optional(),
  sources: z.array(answerSourceOutput).describe('Sources of the answer, most relevant first.'),
};

/** Structured result of `import_text` and `import_url`. */
export const importOutput = {
  documentId: z.string(),
  index: z.string(),
  state: z
    .enum(['completed', 'failed', 'in_progress'])
    .describe('in_progress: ingestion continues in the background; call get_document_status until it is completed.'),
  error: z.string().optional(),
};

/** Structured result of `get_document_status`. */
export const statusOutput = {
  documentId: z.string(),
  index: z.string(),
  state: z.enum(['completed', 'failed', 'in_progress']),
  ready: z.boolean().describe('True when the document can be searched.'),
  error: z.string().optional().describe('Why ingestion failed.'),
  completedSteps: z.array(z.string()),
  remainingSteps: z.array(z.string()),
  failedFiles: z.array(z.object({ name: z.string(), error: z.string() })).optional(),
  tags: tagsOutput,
  creation: z.string().optional(),
  lastUpdate: z.string().optional(),
};

/** Structured result of `delete_document`. */
export const deleteOutput = {
  documentId: z.string(),
  index: z.string(),
  deleted: z.boolean().describe('True once the deletion is accepted; its records disappear within moments.'),
};

/** Structured result of `list_indexes`. */
export const indexesOutput = {
  indexes: z.array(z.string()).describe('Names of the indexes that hold documents.'),
};

/** One document of a listing (`list_documents`, `update_document_tags`). */
export const documentOutput = z.object({
  documentId: z.string(),
  index: z.string(),
  state: z
    .enum(['completed', 'in_progress', 'failed', 'deleting'])
    .describe('completed: searchable; in_progress: being ingested; failed: see error; deleting: being removed.'),
  error: z.string().optional().describe('Why ingestion failed.'),
  tags: tagsOutput.describe("The document's own tags."),
  files: z
    .array(z.object({ name: z.string(), size: z.number().int(), mimeType: z.string(), error: z.string().optional() }))
    .describe('The uploaded files, with the reason when one could not be processed.'),
  size: z.number().int().describe('Total bytes of the uploaded files.'),
  creation: z.string().describe('When ingestion started (ISO 8601).'),
  lastUpdate: z.string().describe('Last change of its state (ISO 8601).'),
  remainingSteps: z.array(z.string()).describe('Ingestion steps still to run.'),
});

/** Structured result of `list_documents`. */
export const documentListOutput = {
  index: z.string(),
  documents: z.array(documentOutput).describe('The page of documents, in document id order.'),
  nextCursor: z
    .string()
    .nullable()
    .describe(
      'Pass it as cursor to get the next page; null on the last page. A filtered page may be short, even empty, and still have one.',
    ),
};

/** Structured result of `update_document_tags`: the document with its new tags. */
export const documentTagsOutput = documentOutput.shape;
