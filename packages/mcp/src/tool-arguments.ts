import { z } from 'zod';

/** Values of one tag: a string, or a list of strings. */
const tagValues = z.union([z.string(), z.array(z.string()).min(1)]);

/** The `index` argument every tool takes. */
export const indexArgument = z
  .string()
  .max(200)
  .optional()
  .describe(
    'Index (collection of documents) to use. Letters, digits, spaces and - \\ / . _ : are allowed; the name is lower-cased and separators become "-". Omit it to use the default index.',
  );

/** The `filters` argument of search and ask: Kernel Memory's list of MemoryFilter objects, plus km's NOT keys. */
export const filtersArgument = z
  .array(z.record(z.string().min(1), tagValues))
  .max(100)
  .optional()
  .describe(
    'Tag filters. Each object is one filter whose conditions must all hold (AND): {"user": "alice", "type": "news"} keeps records tagged user:alice and type:news; ' +
      'a list value requires every value in it. A record is kept when it satisfies any one of the objects (OR). ' +
      'Prefix a tag name with "!" to exclude: {"!status": "draft"} keeps records not tagged status:draft. ' +
      'Example: [{"user": "alice", "!status": "draft"}, {"user": "bob"}]. Omit to search all records.',
  );

/** The `minRelevance` argument of search and ask. */
export const minRelevanceArgument = z
  .number()
  .min(0)
  .max(1)
  .optional()
  .describe(
    'Keep only passages at least this relevant, from 0 (anything) to 1 (identical); 0.5 to 0.8 are typical floors. Omit to use the server default.',
  );

/** The `documentId` argument of the document tools. */
export const documentIdArgument = z
  .string()
  .min(1)
  .max(200)
  .describe('Id of the document, as given or returned when it was imported (letters, digits, "-", "_", "." are safe).');

/** The `tags` argument of the import tools. */
export const tagsArgument = z
  .record(z.string().min(1), tagValues)
  .optional()
  .describe(
    'Tags to attach to the document, for filtering later: tag name -> value or list of values, e.g. {"user": "alice", "type": ["news", "tech"]}. Names may not start with "__" or contain ":" or "=".',
  );

/** The `documentId` argument of the import tools. */
export const newDocumentIdArgument = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe(
    'Id to give the document (letters, digits, "-", "_", "."); importing again with the same id replaces it. Omit to get a new random id.',
  );

/** The `filters` argument of list_documents: the same wire form as search's, matched against each document's own tags. */
export const documentFiltersArgument = filtersArgument.describe(
  "Tag filters on the documents' own tags, as search takes them: keys inside one object must all match (AND), a document is listed when it matches any object (OR), " +
    'a "!" before a tag name excludes. Example: [{"team": "hr", "!status": "draft"}]. "__document_id" works too. Omit to list every document.',
);

/** The `tags` argument of update_document_tags: the complete new set. */
export const replacementTagsArgument = z
  .record(z.string().min(1), z.union([z.string(), z.array(z.string())]))
  .describe(
    'The document\'s new tags, replacing all its tags: tag name -> value or list of values, e.g. {"team": "hr", "year": ["2025", "2026"]}. ' +
      '{} removes every tag. Names may not start with "__" or contain ":" or "=".',
  );
