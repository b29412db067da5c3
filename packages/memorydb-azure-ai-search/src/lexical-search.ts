/**
 * Characters with a meaning in Azure AI Search's simple query syntax (operators `+ | -`,
 * phrases `"`, prefixes `*`, grouping `( )`, and those the full syntax reserves), each escaped
 * with a backslash so that the text is searched as words, never parsed as syntax.
 */
const SPECIAL = /[+\-&|!(){}[\]^"~*?:\\/]/g;

/**
 * The search text of a lexical query: the caller's words with every special character escaped.
 * Undefined when no letter or digit is left (an empty search would match every document).
 *
 * ```ts
 * simpleQueryText('-tax (rules)*'); // '\\-tax \\(rules\\)\\*'
 * ```
 */
export function simpleQueryText(text: string): string | undefined {
  if (!/[\p{L}\p{N}]/u.test(text)) return undefined;
  return text.replace(SPECIAL, (c) => `\\${c}`);
}

/**
 * A BM25 score (unbounded, `>= 0`) as km's lexical score in [0, 1): `score / (score + 1)`.
 * Monotone, so the order is the service's, and a hit's score does not depend on the other hits.
 */
export function lexicalScore(score: number): number {
  return score > 0 ? score / (score + 1) : 0;
}
