// The measuring loops of the evaluation bench: searches and asks over a list of questions, one at
// a time (latency is per call), and their summaries.
import { containsGold, mean, ndcgAt, percentile, recallAt, spread } from './metrics.mjs';

/** Top-k searched per question: the retrieval metrics are @10. */
export const SEARCH_LIMIT = 10;

const round = (x, digits = 3) => (typeof x === 'number' && Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null);

/** Document ids of a search result, best first, each once. */
export function rankedDocuments(result) {
  return [...new Set(result.results.map((c) => c.documentId))];
}

/** The relevance of the first partition of the first citation (the top result), or null when none came back. */
function topRelevance(result) {
  return result.results[0]?.partitions[0]?.relevance ?? null;
}

/** 1 / rank of the first relevant document in the first k, 0 when none is there. */
function reciprocalRank(ranked, golds, k = 10) {
  const i = ranked.slice(0, k).findIndex((id) => golds.includes(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

/**
 * Searches each question with gold documents (`{ text, gold: [documentId] }`) in `index`; per
 * question: nDCG@10, recall@10, reciprocal rank@10, R@1 hit, the top result's relevance, latency.
 */
export async function runSearches(memory, index, questions, options) {
  const rows = [];
  for (const q of questions) {
    if (!q.gold?.length) continue;
    const started = performance.now();
    const result = await memory.search(q.text, { index, limit: SEARCH_LIMIT, ...options });
    const ms = performance.now() - started;
    const ranked = rankedDocuments(result);
    rows.push({
      ndcg: ndcgAt(ranked, q.gold, 10),
      recall: recallAt(ranked, q.gold, 10),
      rr: reciprocalRank(ranked, q.gold, 10),
      hit1: q.gold.includes(ranked[0]) ? 1 : 0,
      top: topRelevance(result),
      ms,
    });
  }
  return rows;
}

/** Means of the `runSearches` rows (nDCG@10 is the main metric), latency p50/p95. */
export function summarizeSearches(rows) {
  const ms = rows.map((r) => r.ms);
  return {
    questions: rows.length,
    ndcgAt10: round(mean(rows.map((r) => r.ndcg))),
    recallAt10: round(mean(rows.map((r) => r.recall))),
    mrrAt10: round(mean(rows.map((r) => r.rr))),
    recallAt1: round(mean(rows.map((r) => r.hit1))),
    p50Ms: round(percentile(ms, 50), 1),
    p95Ms: round(percentile(ms, 95), 1),
    topRelevance: spread(rows.map((r) => r.top).filter((x) => x !== null)),
  };
}

/** The answer without its list of sources (file names and document ids are not answers), for older builds that appended one. */
export function answerBody(text) {
  return String(text).replace(/\n+\s*Sources:[\s\S]*$/, '');
}

/** The first quote of an extractive answer (`> "…"`), or the whole body when it has none. */
export function firstQuote(text) {
  const body = answerBody(text);
  return body.split('\n').find((line) => line.startsWith('> ')) ?? body;
}

/**
 * Asks each question (`{ text, answers, kind }`) in `index`; per question: its kind, whether
 * ask said "not found" (`noResult`), whether the answer and its first quote hold a gold alias,
 * and the latency in ms.
 */
export async function runAsks(memory, index, questions, options) {
  const rows = [];
  for (const q of questions) {
    const started = performance.now();
    const answer = await memory.ask(q.text, { index, ...options });
    const ms = performance.now() - started;
    const answered = answer.noResult !== true;
    rows.push({
      kind: q.kind,
      noResult: !answered,
      correct: answered && q.answers.length > 0 && containsGold(answerBody(answer.text), q.answers),
      firstCorrect: answered && q.answers.length > 0 && containsGold(firstQuote(answer.text), q.answers),
      hasAnswers: q.answers.length > 0,
      ms,
    });
  }
  return rows;
}

/** The kinds of question that memory can answer (the rest are unanswerable by design). */
export const ANSWERABLE_KINDS = new Set(['answerable', 'squad', 'locomo1', 'locomo2', 'locomo3', 'locomo4']);

/**
 * Rates of `runAsks` rows: false "not found" over the answerable kinds, gold-in (the answer, and
 * its first quote, hold a gold alias) over those with answers, refusals of the off-topic and of
 * the other unanswerable questions, latency p50/p95. A rate over no question is null.
 */
export function summarizeAsks(rows) {
  const rate = (items, test) => (items.length ? round(items.filter(test).length / items.length) : null);
  const answerable = rows.filter((r) => ANSWERABLE_KINDS.has(r.kind));
  const withAnswers = answerable.filter((r) => r.hasAnswers);
  const offTopic = rows.filter((r) => r.kind === 'offtopic');
  const unanswerable = rows.filter((r) => !ANSWERABLE_KINDS.has(r.kind) && r.kind !== 'offtopic');
  const ms = rows.map((r) => r.ms);
  return {
    answerable: answerable.length,
    falseNotFound: rate(answerable, (r) => r.noResult),
    goldIn: rate(withAnswers, (r) => r.correct),
    goldInFirst: rate(withAnswers, (r) => r.firstCorrect),
    offTopic: offTopic.length,
    offTopicRefused: rate(offTopic, (r) => r.noResult),
    unanswerable: unanswerable.length,
    unanswerableRefused: rate(unanswerable, (r) => r.noResult),
    p50Ms: round(percentile(ms, 50), 1),
    p95Ms: round(percentile(ms, 95), 1),
  };
}
