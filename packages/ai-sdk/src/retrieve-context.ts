import type { IKernelMemory, MemoryFilter } from '@km/core';
import { sourceLabel, toMemoryCitations, type MemoryCitation } from './memory-citation.js';

/** Options of {@link retrieveContext}. */
export interface RetrieveContextOptions {
  /** Index to search. @default the memory's default index (`default`) */
  index?: string;
  /** Only records matching these filters (OR across the list, AND inside one). @default none */
  filters?: readonly MemoryFilter[];
  /** Keep passages at least this relevant (cosine similarity). @default the memory's own default */
  minRelevance?: number;
  /** Most passages to return. @default 5 */
  limit?: number;
  /** The instructions that open `system`, before the numbered sources. @default {@link DEFAULT_RAG_INSTRUCTIONS} */
  instructions?: string;
  signal?: AbortSignal;
}

/** One retrieved passage. */
export interface RetrievedPassage extends MemoryCitation {
  /** A short label of where it comes from: `guide.pdf, page 3`, `notes.md`. */
  source: string;
}

/** Result of {@link retrieveContext}. */
export interface RetrievedContext {
  query: string;
  /** The passages, most relevant first. */
  passages: RetrievedPassage[];
  /** The passages as numbered sources, `[1] guide.pdf, page 3` then the text; empty when none matched. */
  context: string;
  /** `instructions`, a blank line, then `context`: ready for `generateText({ system, prompt })`. */
  system: string;
}

/** What {@link retrieveContext} tells the model unless `instructions` says otherwise. */
export const DEFAULT_RAG_INSTRUCTIONS =
  'Answer from the numbered sources below only. Cite the sources you use as [1], [2]. ' +
  'If the sources do not hold the answer, say that you do not know.';

/**
 * Retrieves the passages most relevant to `query` and formats them for a prompt (retrieval
 * augmented generation without tools).
 *
 * ```ts
 * const question = 'How far is the Moon?';
 * const { system, passages } = await retrieveContext(memory, question, { limit: 4 });
 * const { text } = await generateText({ model, system, prompt: question });
 * ```
 */
export async function retrieveContext(
  memory: IKernelMemory,
  query: string,
  options: RetrieveContextOptions = {},
): Promise<RetrievedContext> {
  const limit = options.limit ?? 5;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`[km] [ai-sdk] limit must be a positive integer, got ${limit}`);
  const found = await memory.search(query, {
    ...(options.index !== undefined ? { index: options.index } : {}),
    ...(options.filters && options.filters.length > 0 ? { filters: options.filters } : {}),
    ...(options.minRelevance !== undefined ? { minRelevance: options.minRelevance } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    limit,
  });
  const passages = toMemoryCitations(found.results)
    .slice(0, limit)
    .map((c) => ({ ...c, source: sourceLabel(c) }));
  const context = formatContext(passages);
  const instructions = options.instructions ?? DEFAULT_RAG_INSTRUCTIONS;
  return { query, passages, context, system: context ? `${instructions}\n\n${context}` : instructions };
}

/** Numbered sources: `[n] label` on one line, the passage's text below, a blank line between sources. */
export function formatContext(passages: ReadonlyArray<Pick<RetrievedPassage, 'source' | 'text'>>): string {
  return passages.map((p, i) => `[${i + 1}] ${p.source}\n${p.text.trim()}`).join('\n\n');
}
