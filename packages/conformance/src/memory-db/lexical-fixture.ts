import type { TagCollection } from '@km/core';

/** The reason a lexical or hybrid case skips when the connector cannot search by words. */
export const NO_LEXICAL_SEARCH = 'capability lexicalSearch is off';

/**
 * Passages for the lexical cases, by id, all four words long (BM25's length normalisation then
 * plays no part). "amber" is common, "zephyr" rare; "zephyrus" is there to catch a prefix
 * search, "café" to check case folding of an accented letter. No word is a stop word, a digit,
 * an inflection of another word, or a query-language keyword, so every backend (core's BM25,
 * Postgres `simple`/`english`, Elasticsearch's standard analyzer) tokenises them alike. Ids of
 * the common passages sort before "rare": a store ranking by ties in id order fails the IDF case.
 */
export const LEXICAL_TEXTS: Record<string, string> = {
  both: 'amber zephyr meadow lantern',
  rare: 'zephyr violet meadow lantern',
  'common-1': 'amber violet meadow lantern',
  'common-2': 'amber violet meadow lantern',
  'common-3': 'amber violet meadow lantern',
  'common-4': 'amber violet meadow lantern',
  'common-5': 'amber violet meadow lantern',
  none: 'copper harbor willow pebble',
  zephyrus: 'zephyrus copper harbor willow',
  cafe: 'café copper harbor willow',
};

/** The words of a text as the oracle sees them: runs of letters and digits, NFC, lower case. */
export function wordsOf(text: string): string[] {
  return text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Ids of the passages holding at least one word of the query, sorted: what a lexical search must return. */
export function holdersOfAnyWord(texts: Record<string, string>, query: string): string[] {
  const wanted = new Set(wordsOf(query));
  return Object.keys(texts)
    .filter((id) => wordsOf(texts[id]!).some((w) => wanted.has(w)))
    .sort();
}

/** Tags of the filter seed: users and types, with a passage lacking the searched word. */
export const LEXICAL_FILTER_SEED: Record<string, { tags: TagCollection; text: string }> = {
  f1: { tags: { user: ['alice'], type: ['news'] }, text: 'zephyr meadow lantern violet' },
  f2: { tags: { user: ['bob'], type: ['news', 'sport'] }, text: 'zephyr meadow lantern violet' },
  f3: { tags: { user: ['alice', 'bob'], type: ['blog'] }, text: 'zephyr meadow lantern violet' },
  f4: { tags: { user: ["o'hara"], type: ['blog'] }, text: 'zephyr meadow lantern violet' },
  f5: { tags: { user: ['alice'], type: ['news'] }, text: 'copper harbor willow pebble' },
  f6: { tags: { user: ['x; DROP TABLE t; --'], type: ['sport'] }, text: 'zephyr meadow lantern violet' },
};
