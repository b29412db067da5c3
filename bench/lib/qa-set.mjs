// The question sets written for this repository (bench/data): passages with answerable and
// unanswerable questions (gold-qa.json, paraphrase-qa.json), and off-topic questions.
import { readFile } from 'node:fs/promises';

/**
 * A QA set file (`{ passages: [{ id, title, text }], answerable: [{ q, answers, passage }],
 * unanswerable: [string] }`) as one index: each passage a document that opens with its title (as
 * a page or a manual section does), answerable questions with their passage as gold.
 */
export function parseQaSet(json, name) {
  if (!Array.isArray(json?.passages) || !Array.isArray(json?.answerable)) throw new Error(`${name}: expected passages and answerable`);
  return {
    name,
    documents: json.passages.map((p) => ({ id: p.id, text: `${p.title}\n\n${p.text}` })),
    questions: [
      ...json.answerable.map((q) => ({ text: q.q, gold: [q.passage], answers: q.answers, kind: 'answerable' })),
      ...(json.unanswerable ?? []).map((text) => ({ text, gold: [], answers: [], kind: 'unanswerable' })),
    ],
  };
}

export async function loadQaSet(path, name) {
  return parseQaSet(JSON.parse(await readFile(path, 'utf8')), name);
}

/**
 * The off-topic questions (`{ questions: [string] }`) in two halves: `fit` (even positions) may
 * calibrate a model, `report` (odd positions) is only ever measured.
 */
export function splitOffTopic(json) {
  const all = Array.isArray(json?.questions) ? json.questions : [];
  return { fit: all.filter((_, i) => i % 2 === 0), report: all.filter((_, i) => i % 2 === 1) };
}

export async function loadOffTopic(path) {
  return splitOffTopic(JSON.parse(await readFile(path, 'utf8')));
}
