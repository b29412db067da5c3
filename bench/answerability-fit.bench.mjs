// Fits the answerability model of ask's extractive answer (when to answer "not found") for the
// offline model, on ONE set: the paraphrase set's answerable questions (bench/data/paraphrase-qa.json,
// questions worded differently from their passages) against the fitting half of the off-topic
// questions (bench/data/off-topic-questions.json, even positions), asked of the paraphrase
// passages. Prints the coefficients to put in packages/core/src/search/answerability.ts; the
// other sets (gold, SQuAD, LoCoMo) and the other half of the off-topic questions validate it in
// rag-eval.bench.mjs. Nothing here is tuned on what is reported there.
//
//   pnpm --filter @km/bench fit:answerability -- [--miss 0.015]
//
// The evidence of each question is computed as ask computes it (`answerEvidence` of @km/core over
// the 100 passages a search retrieves, default mode). The threshold is the highest at which at most
// `--miss` of the answerable questions are answered "not found" (1 of 80 by default).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMemory, closeMemory, importDocuments, loadKm } from './lib/km-runtime.mjs';
import { fitLogistic, logisticScore, withThreshold } from './lib/logistic.mjs';
import { loadOffTopic, loadQaSet } from './lib/qa-set.mjs';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
const { values: flags } = parseArgs({ args: argv, options: { miss: { type: 'string', default: '0.015' } } });
const maxMiss = Number(flags.miss);

const km = await loadKm(null);
const { answerEvidence, contentTerms, questionTerms } = km.core;
const set = await loadQaSet(join(BENCH, 'data/paraphrase-qa.json'), 'paraphrase');
const offTopic = (await loadOffTopic(join(BENCH, 'data/off-topic-questions.json'))).fit;
const directory = await mkdtemp(join(tmpdir(), 'km-fit-'));
const { memory, embeddings } = buildMemory(km, directory);
const rows = [];
try {
  await importDocuments(memory, set.name, set.documents);
  const questions = [
    ...set.questions.filter((q) => q.gold.length > 0).map((q) => ({ text: q.text, y: 1 })),
    ...offTopic.map((text) => ({ text, y: 0 })),
  ];
  for (const q of questions) {
    // The pool ask reads: the 100 best partitions of the default search, best first.
    const result = await memory.search(q.text, { index: set.name, limit: 100 });
    const pool = result.results.flatMap((c) => c.partitions.map((p) => ({ terms: contentTerms(p.text), relevance: p.relevance })));
    const evidence = answerEvidence(questionTerms(q.text), pool);
    rows.push({ text: q.text, y: q.y, evidence });
  }
} finally {
  await closeMemory(memory);
  await embeddings.close?.();
  await rm(directory, { recursive: true, force: true });
}

const round = (x) => Math.round(x * 1000) / 1000;
function fitAndReport(name, features) {
  const data = rows.map((r) => ({ x: features(r.evidence), y: r.y }));
  const fitted = fitLogistic(data);
  const model = withThreshold(
    fitted,
    data.filter((r) => r.y === 1).map((r) => r.x),
    maxMiss,
  );
  const missed = rows.filter((r, i) => r.y === 1 && logisticScore(model, data[i].x) < 0);
  const refused = data.filter((r) => r.y === 0 && logisticScore(model, r.x) < 0).length;
  const negatives = data.filter((r) => r.y === 0).length;
  console.log(`\n${name}: intercept ${round(model.intercept)}, weights ${model.weights.map(round).join(', ')}`);
  console.log(
    `  on the fitting set: ${missed.length} of ${rows.length - negatives} answerable answered "not found", ${refused} of ${negatives} off-topic refused`,
  );
  for (const r of missed) console.log(`  not found: ${r.text} (word ${round(r.evidence.lexical)}, cosine ${round(r.evidence.cosine)})`);
  return model;
}

console.log(`answerability fit: ${rows.length} questions of the paraphrase set (${set.documents.length} passages), miss rate ${maxMiss}`);
const full = fitAndReport('words and cosine (local/universal-sentence-encoder-lite)', (e) => [e.lexical, e.cosine]);
const words = fitAndReport('words alone (LEXICAL_ANSWERABILITY)', (e) => [e.lexical]);
console.log('\nfor packages/core/src/search/answerability.ts:');
console.log(
  `  'local/universal-sentence-encoder-lite': { intercept: ${round(full.intercept)}, lexical: ${round(full.weights[0])}, cosine: ${round(full.weights[1])} },`,
);
console.log(`  LEXICAL_ANSWERABILITY = { intercept: ${round(words.intercept)}, lexical: ${round(words.weights[0])}, cosine: 0 }`);
