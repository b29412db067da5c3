import { InvalidArgumentError, Option, type Command } from 'commander';
import { KmError, MemoryFilter, SEARCH_MODES, type SearchMode } from '@km/core';

/** The options `ask` and `search` share: which records the retrieval may use. */
export interface RetrievalCliOptions {
  index?: string;
  filter: string[];
  not: string[];
  minRelevance?: number;
  /** `--mode`: vector, lexical or hybrid. */
  mode?: SearchMode;
  /** `--rerank` (true), `--rerank mmr`, or `--no-rerank` (false). */
  rerank?: boolean | 'mmr';
}

/** Commander's accumulator of a repeatable option: every value given, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the options of {@link RetrievalCliOptions} (but `--index`, a target option) to a command. */
export function addRetrievalOptions(command: Command): Command {
  return command
    .option('-f, --filter <key:value>', 'only records with this tag (repeatable, all must match)', collect, [])
    .option('--not <key:value>', 'only records without this tag (repeatable)', collect, [])
    .option('--min-relevance <n>', 'minimum cosine similarity', Number)
    .addOption(
      new Option('--mode <mode>', "vector (embeddings), lexical (words) or hybrid (both); default: the memory's").choices(SEARCH_MODES),
    )
    .option('--rerank [mmr]', "rerank with the configured reranker, or with 'mmr' for diverse results", rerankValue)
    .option('--no-rerank', 'do not rerank, even when a reranker is configured');
}

/** The value of `--rerank`: none (the configured reranker) or `mmr`; anything else is refused, naming the flag. */
export function rerankValue(value: string | undefined): true | 'mmr' {
  if (value === undefined) return true;
  if (value === 'mmr') return 'mmr';
  throw new InvalidArgumentError(`--rerank takes no value or 'mmr', got ${JSON.stringify(value)} (put --rerank after the question)`);
}

/** The retrieval options of a request from the command-line options. */
export function retrievalOf(opts: RetrievalCliOptions) {
  let filter = new MemoryFilter();
  for (const [key, value] of opts.filter.map(filterPair)) filter = filter.byTag(key, value);
  for (const [key, value] of opts.not.map(filterPair)) filter = filter.notTag(key, value);
  return {
    ...(opts.index ? { index: opts.index } : {}),
    ...(filter.isEmpty() ? {} : { filter }),
    ...(opts.minRelevance !== undefined ? { minRelevance: opts.minRelevance } : {}),
    ...(opts.mode !== undefined ? { mode: opts.mode } : {}),
    ...(opts.rerank !== undefined ? { rerank: opts.rerank } : {}),
  };
}

/** `key:value` of a filter; unlike tags, reserved keys such as `__document_id` may be filtered on. */
export function filterPair(text: string): [string, string | null] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new KmError('invalid_filter', `filter ${JSON.stringify(text)} must be written key:value`);
  const value = text.slice(colon + 1).trim();
  return [text.slice(0, colon).trim(), value === '' ? null : value];
}
