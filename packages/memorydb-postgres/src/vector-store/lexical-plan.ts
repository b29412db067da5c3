/**
 * How a lexical search on a large table bounds the rows it ranks. Ranking a row reads its
 * `tsvector` (from TOAST) and costs tens of microseconds: ranking every row that holds a common
 * word of the question (a third of a table, for some questions) takes seconds at 100,000 rows.
 * So past {@link EXACT_RANKING_ROWS} rows, when the question's words are in more rows than the
 * candidate budget (`lexicalCandidates`), only candidates are ranked, picked through the GIN
 * index in this order until the budget is filled: the rows holding sets of two words or more,
 * the sets with the most IDF together first (up to four such AND tiers, every word together
 * usually first), then the rows holding a rare word (the rarest words whose rows fit the budget
 * together), then any row holding a word (when the words are in more than ten times the budget
 * together, only if the tiers above found fewer rows than the search's limit: the bitmap of an
 * OR of common words costs more than the rest). An AND is answered inside the index by walking
 * its rarest word's rows, so each tier reads from the table only the rows it returns, and a
 * tier runs only while the budget is not filled.
 */

/** Below this many rows (PostgreSQL's estimate), word counts are exact and every matching row is ranked, as before. */
export const EXACT_RANKING_ROWS = 10_000;

/** Rows ranked at least, on a large table (more when the search asks for more: 8 × its limit). */
export const DEFAULT_LEXICAL_CANDIDATES = 1_000;

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
  /**
   * The last tier (any word) runs only when the others found fewer rows than the search's
   * limit: its words are in more than {@link ANY_WORD_TIER_ROWS} × the budget rows together, so
   * its bitmap would cost more than the rest of the search.
   */
  readonly lastTierIfShort: boolean;
}

/** Past this many times the budget, the words' rows together make the any-word tier run only when needed. */
export const ANY_WORD_TIER_ROWS = 10;

/** A question's words as counted on the table. */
export interface CountedTerms {
  readonly terms: readonly QueryTerm[];
  /** The table's rows (counted, or PostgreSQL's estimate). */
  readonly rows: number;
  /** True when the rows and each word's rows were counted (a table under {@link EXACT_RANKING_ROWS} rows). */
  readonly exact: boolean;
}

/** The most AND tiers. */
const MAX_AND_TIERS = 4;
/** AND tiers are drawn from this many of the rarest words (2^12 subsets at most). */
const MAX_AND_WORDS = 12;

/** The candidate budget of a search asking for `limit` rows, ranking at least `candidates`. */
export function candidateBudget(limit: number, candidates = DEFAULT_LEXICAL_CANDIDATES): number {
  return Math.max(candidates, 8 * limit);
}

/** A word's inverse document frequency, as the ranking SQL computes it. */
function idf(df: number, rows: number): number {
  return Math.log(1 + (Math.max(rows, df) - df + 0.5) / (df + 0.5));
}

/**
 * The candidate tiers of a search asking for `limit` rows, or undefined when every matching row
 * is ranked: on a table whose counts are exact, or when the words' rows fit the budget together.
 */
export function planCandidates(counted: CountedTerms, limit: number, candidates = DEFAULT_LEXICAL_CANDIDATES): CandidateTiers | undefined {
  const budget = candidateBudget(limit, candidates);
  const found = counted.terms.filter((t) => t.df > 0);
  if (counted.exact || found.length === 0 || found.reduce((sum, t) => sum + t.df, 0) <= budget) return undefined;
  const byRarity = [...found].sort((a, b) => a.df - b.df || (a.literal < b.literal ? -1 : 1));
  const tiers: string[] = [];
  // AND tiers: the sets of two words or more with the most IDF together first (a row holding
  // them scores at least that much), each answered by the index walking its rarest word's rows.
  const pool = byRarity.slice(0, MAX_AND_WORDS);
  const sets: Array<{ words: string; weight: number }> = [];
  for (let mask = 1; mask < 1 << pool.length; mask++) {
    const words = pool.filter((_, i) => mask & (1 << i));
    if (words.length < 2) continue;
    sets.push({ words: words.map((t) => t.literal).join(' & '), weight: words.reduce((sum, t) => sum + idf(t.df, counted.rows), 0) });
  }
  sets.sort((a, b) => b.weight - a.weight || (a.words < b.words ? -1 : 1));
  tiers.push(...sets.slice(0, MAX_AND_TIERS).map((set) => set.words));
  // The rarest words whose rows fit the budget together, then any word.
  const rare: string[] = [];
  let rows = 0;
  for (const term of byRarity) {
    if (rows + term.df > budget) break;
    rows += term.df;
    rare.push(term.literal);
  }
  if (rare.length > 0) tiers.push(rare.join(' | '));
  tiers.push(byRarity.map((t) => t.literal).join(' | '));
  const rowsOfAllWords = found.reduce((sum, t) => sum + t.df, 0);
  // A lone tier (a one-word question) always runs: there is nothing to fill the budget before it.
  return { budget, tiers, lastTierIfShort: tiers.length > 1 && rowsOfAllWords > ANY_WORD_TIER_ROWS * budget };
}
