// The measuring loops of the evaluation bench: searches and asks over a list of questions, one at
// a time (latency is per call), and their summaries.
import { containsGold, goldRank, percentile, rankMetrics, spread } from './metrics.mjs';

/** Top-k searched per question: recall is reported up to this k. */
export const SEARCH_LIMIT = 10;

const round = (x, digits = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null);

/** Document ids of a search result, best first, each once. */
function rankedDocuments(result) {
  return [...new Set(result.results.map((c) => c.documentId))];
}

/** The relevance of the first partition of the first citation (the top result), or null when none came back. */
function topRelevance(result) {
  return result.results[0]?.partitions[0]?.relevance ?? null;
}

/**
 * Searches each question (`{ text, passageId? }`) in `index`; returns per question the rank of its
 * gold passage (0 when absent or there is no gold), the top result's relevance and the latency in ms.
 */
export async function runSearches(memory, index, questions, options) {
  const rows = [];
  for (const q of questions) {
    const started = performance.now();
    const result = await memory.search(q.text, { index, limit: SEARCH_LIMIT, ...options });
    const ms = performance.now() - started;
    rows.push({ rank: q.passageId ? goldRank(rankedDocuments(result), q.passageId) : 0, top: topRelevance(result), ms });
  }
  return rows;
}

/** recall@1/5/10, MRR@10, latency p50/p95 and the top relevance spread of `runSearches` rows. */
export function summarizeSearches(rows) {
  const { recall, mrr } = rankMetrics(
    rows.map((r) => r.rank),
    [1, 5, 10],
    10,
  );
  const ms = rows.map((r) => r.ms);
  return {
    questions: rows.length,
    recallAt1: round(recall[1]),
    recallAt5: round(recall[5]),
    recallAt10: round(recall[10]),
    mrrAt10: round(mrr),
    p50Ms: round(percentile(ms, 50), 1),
    p95Ms: round(percentile(ms, 95), 1),
    topRelevance: spread(rows.map((r) => r.top).filter((x) => x !== null)),
  };
}

/** The answer without its list of sources (file names and document ids are not answers). */
export function answerBody(text) {
  return String(text).replace(/\n+\s*Sources:[\s\S]*$/, '');
}

/**
 * Asks each question (`{ text, answers: string[] }`; no answers = unanswerable) in `index`;
 * returns per question whether ask said "not found" (`noResult`), whether the answer holds a gold
 * alias, and the latency in ms.
 */
export async function runAsks(memory, index, questions, options) {
  const rows = [];
  for (const q of questions) {
    const started = performance.now();
    const answer = await memory.ask(q.text, { index, ...options });
    const ms = performance.now() - started;
    rows.push({
      answerable: q.answers.length > 0,
      noResult: answer.noResult === true,
      correct: answer.noResult !== true && q.answers.length > 0 && containsGold(answerBody(answer.text), q.answers),
      ms,
    });
  }
  return rows;
}

/**
 * Rates of `runAsks` rows: answer-contains-gold and false "not found" over the answerable ones,
 * no-answer accuracy over the unanswerable ones (null when a group is empty), latency p50/p95.
 */
export function summarizeAsks(rows) {
  const answerable = rows.filter((r) => r.answerable);
  const unanswerable = rows.filter((r) => !r.answerable);
  const rate = (items, test) => (items.length ? round(items.filter(test).length / items.length) : null);
  const ms = rows.map((r) => r.ms);
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    containsGold: rate(answerable, (r) => r.correct),
    falseNotFound: rate(answerable, (r) => r.noResult),
    noAnswerAccuracy: rate(unanswerable, (r) => r.noResult),
    p50Ms: round(percentile(ms, 50), 1),
    p95Ms: round(percentile(ms, 95), 1),
  };
}
