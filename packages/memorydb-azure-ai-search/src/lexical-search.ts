/**
 * Characters with a meaning in Azure AI Search's simple query syntax (operators `+ | -`,
 * phrases `"`, prefixes `*`, grouping `( )`, `'`, and those the full syntax reserves), each
 * escaped with a backslash so that the text is searched as words, never parsed as syntax.
 */
const SPECIAL = /[+\-&|!(){}[\]^"'~*?:\\/]/g;

/** Most words searched: the service bounds the clauses of a search (one per word here; 3,000, 1,024 in older documentation). */
export const MAX_LEXICAL_WORDS = 1000;
/** Most characters searched, before escaping (which at most doubles them; the service takes 100,000). */
export const MAX_LEXICAL_CHARS = 32_000;

/**
 * A word as the analyzer splits text, or more: a run of letters, digits and marks, and each
 * ideograph or kana on its own (the standard tokenizer makes one term of each). Counting more
 * words than the analyzer makes only shortens the query.
 */
const CJK = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}`;
const WORD = new RegExp(String.raw`[${CJK}]|(?:(?![${CJK}])[\p{L}\p{N}\p{M}])+`, 'gu');

/**
 * The search text of a lexical query: the caller's words, cut to {@link MAX_LEXICAL_WORDS}
 * words and {@link MAX_LEXICAL_CHARS} characters (so that a long hybrid text never exceeds the
 * service's query limits), with every special character escaped. Undefined when no letter or
 * digit is left (an empty search would match every document).
 *
 * ```ts
 * simpleQueryText('-tax (rules)*'); // '\\-tax \\(rules\\)\\*'
 * ```
 */
export function simpleQueryText(text: string): string | undefined {
  const cut = withinQueryLimits(text);
  if (!/[\p{L}\p{N}]/u.test(cut)) return undefined;
  return cut.replace(SPECIAL, (c) => `\\${c}`);
}

/** The text up to the end of its {@link MAX_LEXICAL_WORDS}th word and at most {@link MAX_LEXICAL_CHARS} characters. */
function withinQueryLimits(text: string): string {
  let cut = text;
  let words = 0;
  for (const word of text.matchAll(WORD)) {
    if (++words === MAX_LEXICAL_WORDS) {
      cut = text.slice(0, word.index + word[0].length);
      break;
    }
  }
  if (cut.length <= MAX_LEXICAL_CHARS) return cut;
  const last = cut.charCodeAt(MAX_LEXICAL_CHARS - 1);
  // Never end on the first half of a surrogate pair.
  return cut.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_LEXICAL_CHARS - 1 : MAX_LEXICAL_CHARS);
}

/**
 * A BM25 score (unbounded, `>= 0`) as km's lexical score in [0, 1): `score / (score + 1)`.
 * Monotone, so the order is the service's, and a hit's score does not depend on the other hits.
 */
export function lexicalScore(score: number): number {
  return score > 0 ? score / (score + 1) : 0;
}
