import { z } from 'zod/v4';

const tags = z
  .record(z.string().min(1), z.union([z.string(), z.array(z.string())]))
  .optional()
  .describe(
    'Only use documents that have all of these tags, e.g. {"project": "apollo", "type": ["report"]}. Leave out to search everything you may read.',
  );

/** Input of the `searchMemory` tool. */
export const searchMemoryInputSchema = z.object({
  query: z.string().trim().min(1).describe('What to look for: a question or key phrases, in plain words.'),
  tags,
  limit: z.number().int().min(1).optional().describe('How many passages to return at most (the configured limit caps it).'),
});
export type SearchMemoryInput = z.infer<typeof searchMemoryInputSchema>;

/** Input of the `askMemory` tool. */
export const askMemoryInputSchema = z.object({
  question: z.string().trim().min(1).describe('The question to answer from the stored documents, as a full sentence.'),
  tags,
});
export type AskMemoryInput = z.infer<typeof askMemoryInputSchema>;

/** Input of the `importText` tool. */
export const importTextInputSchema = z.object({
  text: z.string().trim().min(1).describe('The text to remember, as it should be found later.'),
  documentId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,255}$/)
    .optional()
    .describe(
      'Id of the document: letters, digits, "-", "_" or "."; importing the same id again replaces the document. A new id when left out.',
    ),
  tags: z
    .record(z.string().min(1), z.union([z.string(), z.array(z.string())]))
    .optional()
    .describe('Tags to find and filter the text by later, e.g. {"topic": "billing"}.'),
});
export type ImportTextInput = z.infer<typeof importTextInputSchema>;
