import type { Command } from 'commander';
import { KmError, MemoryFilter } from '@km/core';

/** The options `ask` and `search` share: which records the retrieval may use. */
export interface RetrievalCliOptions {
  index?: string;
  filter: string[];
  not: string[];
  minRelevance?: number;
}

/** Commander's accumulator of a repeatable option: every value given, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the options of {@link RetrievalCliOptions} (but `--index`, a target option) to a command. */
export function addRetrievalOptions(command: Command): Command {
  return command
    .option('-f, --filter <key:value>', 'only records with this tag (repeatable, all must match)', collect, [])
    .option('--not <key:value>', 'only records without this tag (repeatable)', collect, [])
    .option('--min-relevance <n>', 'minimum cosine similarity', Number);
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
  };
}

/** `key:value` of a filter; unlike tags, reserved keys such as `__document_id` may be filtered on. */
function filterPair(text: string): [string, string | null] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new KmError('invalid_filter', `filter ${JSON.stringify(text)} must be written key:value`);
  const value = text.slice(colon + 1).trim();
  return [text.slice(0, colon).trim(), value === '' ? null : value];
}
