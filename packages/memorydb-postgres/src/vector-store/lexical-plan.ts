/**
 * How a lexical search on a large table bounds the rows it ranks. Ranking a row reads its
 * `tsvector` (from TOAST) and costs tens of microseconds: ranking every row that holds a common
 * word of the question (a third of a table, for some questions) takes seconds at 100,000 rows.
 * So past {@link EXACT_RANKING_ROWS} rows, when the question's words are in more rows than the
 * candidate budget (`lexicalCandidates`), only candidates are ranked, picked by the GIN index in this order until the
 * budget is filled: the rows holding every word, the rows holding a rare word (the rarest words
 * whose rows fit the budget together), the rows holding all words but one, then any row holding
 * a word. The GIN index intersects words inside the index, so each tier reads from the table
 * only the rows it returns.
 */

/** Below this many rows (PostgreSQL's estimate), word counts are exact and every matching row is ranked, as before. */
export const EXACT_RANKING_ROWS = 10_000;

/** Rows ranked at least, on a large table (more when the search asks for more: 8 × its limit). */
export const DEFAULT_LEXICAL_CANDIDATES = 400;

/**
 * On a large table, a word outside the column's statistics (`pg_stats.most_common_elems`, kept
 * by ANALYZE) is counted up to this many rows; past it, its count is taken as the statistics'
 * smallest common frequency times the rows.
 */
export const RARE_WORD_COUNT_CAP = 1_000;

/** A lexeme of the question: its tsquery literal and the rows holding it (counted or estimated). */
export interface QueryTerm {
  readonly literal: string;
  readonly df: number;
}

/** The candidate tiers of a bounded ranking, as tsquery texts, best tier first. */
export interface CandidateTiers {
  /** Rows ranked at most. */
  readonly budget: number;
  readonly tiers: readonly string[];
}

/** At most this many words make the "all words but one" tier (it holds one AND per word). */
const MAX_WORDS_FOR_ALL_BUT_ONE = 12;

/** The candidate budget of a search asking for `limit` rows, ranking at least `candidates`. */
export function candidateBudget(limit: number, candidates = DEFAULT_LEXICAL_CANDIDATES): number {
  return Math.max(candidates, 8 * limit);
}

/**
 * The candidate tiers of a search, or undefined when every matching row is ranked: on a table
 * whose counts are exact, or when the words' rows fit the budget together.
 */
export function planCandidates(
  terms: readonly QueryTerm[],
  limit: number,
  exact: boolean,
  candidates = DEFAULT_LEXICAL_CANDIDATES,
): CandidateTiers | undefined {
  const budget = candidateBudget(limit, candidates);
  const found = terms.filter((t) => t.df > 0);
  if (exact || found.length === 0 || found.reduce((sum, t) => sum + t.df, 0) <= budget) return undefined;
  const byRarity = [...found].sort((a, b) => a.df - b.df || (a.literal < b.literal ? -1 : 1));
  const literals = byRarity.map((t) => t.literal);
  const tiers: string[] = [];
  if (literals.length > 1) tiers.push(literals.join(' & '));
  const rare: string[] = [];
  let rows = 0;
  for (const term of byRarity) {
    if (rows + term.df > budget) break;
    rows += term.df;
    rare.push(term.literal);
  }
  if (rare.length > 0) tiers.push(rare.join(' | '));
  if (literals.length > 2 && literals.length <= MAX_WORDS_FOR_ALL_BUT_ONE) {
    tiers.push(literals.map((_, skip) => `( ${literals.filter((__, i) => i !== skip).join(' & ')} )`).join(' | '));
  }
  tiers.push(literals.join(' | '));
  return { budget, tiers };
}
