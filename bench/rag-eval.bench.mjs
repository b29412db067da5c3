// Retrieval and answer evaluation of km's search modes with the offline model (USE lite) and the
// built-in SimpleVectorDb, serverless, in one process.
//
//   Corpus A (retrieval): a SQuAD-style file (default ../shared/datasets/squad-v2-questions-sample.json),
//     every paragraph imported as a document; a seeded sample of its questions is searched and the
//     question's own paragraph is the gold: recall@1/5/10, MRR@10, search latency p50/p95.
//   Corpus B (answers): bench/data/gold-qa.json (written for this repository): 30 passages, short
//     gold answers and unanswerable questions: retrieval as above, and `ask` without a text
//     generator (the extractive answer): answer-contains-gold, false "not found", no-answer
//     accuracy, ask latency. Its unanswerable questions are also asked of corpus A (out of corpus).
//   Per configuration: vector, lexical, hybrid (RRF), hybrid + MMR, hybrid + the model reranker of
//     KM_RERANKER (when set and this build has HttpTextReranker). A configuration the build refuses
//     or ignores is reported "n/a". The top result's relevance (p10/p50/p90) is printed for
//     answerable vs unanswerable questions: it calibrates the "not found" floor.
//   --before <checkout>: the same corpus B measurements (retrieval and answers) with another built
//     checkout's @km/core and @km/ai-local (vector only), side by side.
//
//   pnpm --filter @km/bench bench:rag -- [--data path] [--questions N|all] [--before /tmp/km-before] [--gold path] [--seed n]
//
// Relative paths are taken from the directory pnpm was started in. JSON results go to
// bench/results/rag-eval.json (not committed).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMemory, importPassages, loadKm } from './lib/km-runtime.mjs';
import { sample } from './lib/metrics.mjs';
import { retrievalConfigs, unsupportedReasons } from './lib/rag-modes.mjs';
import { runAsks, runSearches, summarizeAsks, summarizeSearches } from './lib/rag-measure.mjs';
import { loadSquad } from './lib/squad.mjs';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const ROOT = resolve(BENCH, '..');
const CWD = process.env.INIT_CWD ?? process.cwd();
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
const { values: flags } = parseArgs({
  args: argv,
  options: {
    data: { type: 'string' },
    questions: { type: 'string', default: '800' },
    before: { type: 'string' },
    gold: { type: 'string' },
    seed: { type: 'string', default: '16' },
  },
});
const questionCount = flags.questions === 'all' ? Number.POSITIVE_INFINITY : Number(flags.questions);
if (!(questionCount > 0)) throw new Error(`--questions must be a positive number or "all", got ${JSON.stringify(flags.questions)}`);
const dataPath = flags.data ? resolve(CWD, flags.data) : resolve(ROOT, '../shared/datasets/squad-v2-questions-sample.json');
const goldPath = flags.gold ? resolve(CWD, flags.gold) : join(BENCH, 'data/gold-qa.json');
const SQUAD = 'squad';
const GOLD = 'gold';

const seconds = (since) => ((performance.now() - since) / 1000).toFixed(1);
const log = (message) => console.error(`[rag-eval] ${message}`);

/** Questions of corpus A whose ask is timed in each configuration. */
const ASK_LATENCY_QUESTIONS = 100;

/** Corpus B: passages in the loader's shape, answerable and unanswerable questions in the measurers' shape. */
async function loadGold(path) {
  const gold = JSON.parse(await readFile(path, 'utf8'));
  return {
    // Each passage is a small document that opens with its title, as a page or a manual section would.
    passages: gold.passages.map((p) => ({ id: p.id, title: p.title, context: `${p.title}\n\n${p.text}` })),
    answerable: gold.answerable.map((q) => ({ text: q.q, answers: q.answers, passageId: q.passage })),
    unanswerable: gold.unanswerable.map((text) => ({ text, answers: [] })),
  };
}

/** The model reranker named by KM_RERANKER (cohere, jina, voyage) when this build has one, else null. */
function modelReranker(core) {
  const provider = process.env.KM_RERANKER;
  if (!provider || ['none', 'mmr'].includes(provider) || typeof core.HttpTextReranker !== 'function') return null;
  return new core.HttpTextReranker({
    provider,
    apiKey: process.env.KM_RERANKER_API_KEY ?? '',
    ...(process.env.KM_RERANKER_MODEL ? { model: process.env.KM_RERANKER_MODEL } : {}),
    ...(process.env.KM_RERANKER_URL ? { baseUrl: process.env.KM_RERANKER_URL } : {}),
  });
}

/** Everything measured with one build: per configuration, corpus A retrieval, corpus B retrieval and answers. */
async function evaluateBuild(km, { gold, squad, squadQuestions, configs }) {
  const directory = await mkdtemp(join(tmpdir(), 'km-rag-eval-'));
  const reranker = configs.some((c) => c.name === 'hybrid+model') ? modelReranker(km.core) : null;
  const { memory, embeddings } = buildMemory(km, directory, { reranker });
  const out = { build: km.label, ingestion: {}, configs: {} };
  try {
    let started = performance.now();
    await importPassages(memory, GOLD, gold.passages);
    out.ingestion.goldSeconds = Number(seconds(started));
    if (squad) {
      started = performance.now();
      await importPassages(memory, SQUAD, squad.passages);
      out.ingestion.squadSeconds = Number(seconds(started));
      log(`${km.label}: imported ${squad.passages.length} SQuAD paragraphs in ${out.ingestion.squadSeconds} s`);
    }
    const probes = gold.answerable.slice(0, 6).map((q) => q.text);
    const reasons = await unsupportedReasons(memory, configs, GOLD, probes);
    for (const config of configs) {
      if (reasons[config.name]) {
        out.configs[config.name] = { unavailable: reasons[config.name] };
        log(`${km.label} ${config.name}: ${reasons[config.name]}`);
        continue;
      }
      started = performance.now();
      const result = {};
      if (squad) result.corpusA = summarizeSearches(await runSearches(memory, SQUAD, squadQuestions, config.options));
      result.corpusB = summarizeSearches(await runSearches(memory, GOLD, gold.answerable, config.options));
      result.corpusBUnanswerable = summarizeSearches(await runSearches(memory, GOLD, gold.unanswerable, config.options));
      result.answers = summarizeAsks(await runAsks(memory, GOLD, [...gold.answerable, ...gold.unanswerable], config.options));
      if (squad) {
        result.outOfCorpus = summarizeSearches(await runSearches(memory, SQUAD, gold.unanswerable, config.options));
        result.outOfCorpusAnswers = summarizeAsks(await runAsks(memory, SQUAD, gold.unanswerable, config.options));
        // Ask's latency on the larger index (answers withheld: timed, not scored).
        const timed = squadQuestions.slice(0, ASK_LATENCY_QUESTIONS).map((q) => ({ text: q.text, answers: [] }));
        result.corpusAAsks = summarizeAsks(await runAsks(memory, SQUAD, timed, config.options));
      }
      out.configs[config.name] = result;
      log(`${km.label} ${config.name}: measured in ${seconds(started)} s`);
    }
  } finally {
    await embeddings.close?.();
    await rm(directory, { recursive: true, force: true });
  }
  return out;
}

const pct = (x) => (x === null || x === undefined ? '   -  ' : `${(x * 100).toFixed(1).padStart(5)}%`);
const num = (x, w = 6) => (x === null || x === undefined ? '-'.padStart(w) : String(x).padStart(w));
const dist = (d) => (d ? `${d.p10.toFixed(3)} / ${d.p50.toFixed(3)} / ${d.p90.toFixed(3)}` : '        -          ');

function printRetrieval(title, runs, corpus) {
  console.log(`\n${title}\n${'config'.padEnd(26)}  R@1     R@5     R@10    MRR@10  p50 ms  p95 ms`);
  for (const run of runs) {
    for (const [name, r] of Object.entries(run.configs)) {
      const label = `${run.build}: ${name}`.padEnd(26);
      const s = r[corpus];
      if (r.unavailable || !s) console.log(`${label}  ${r.unavailable ?? 'not run (--before measures corpus B only)'}`);
      else
        console.log(
          `${label} ${pct(s.recallAt1)} ${pct(s.recallAt5)} ${pct(s.recallAt10)}  ${num(s.mrrAt10)} ${num(s.p50Ms, 7)} ${num(s.p95Ms, 7)}`,
        );
    }
  }
}

function printAnswers(runs) {
  console.log(
    `\nAnswers, corpus B (ask, no text generator)\n${'config'.padEnd(26)}  gold-in  false-NF  no-ans  out-of-corpus-no-ans  p50 ms  p95 ms`,
  );
  for (const run of runs) {
    for (const [name, r] of Object.entries(run.configs)) {
      const label = `${run.build}: ${name}`.padEnd(26);
      if (r.unavailable) continue;
      const a = r.answers;
      console.log(
        `${label} ${pct(a.containsGold)}  ${pct(a.falseNotFound)}  ${pct(a.noAnswerAccuracy)}  ${pct(r.outOfCorpusAnswers?.noAnswerAccuracy).padStart(20)} ${num(a.p50Ms, 7)} ${num(a.p95Ms, 7)}`,
      );
    }
  }
}

function printCorpusAAsks(runs) {
  const rows = runs.flatMap((run) =>
    Object.entries(run.configs)
      .filter(([, r]) => r.corpusAAsks)
      .map(([name, r]) => [`${run.build}: ${name}`.padEnd(26), r.corpusAAsks]),
  );
  if (rows.length === 0) return;
  console.log(
    `\nAsk latency, corpus A (${squad.passages.length} paragraphs, first ${ASK_LATENCY_QUESTIONS} sampled questions; answers withheld, so not scored)\n${'config'.padEnd(26)}  not-found  p50 ms  p95 ms`,
  );
  for (const [label, a] of rows) console.log(`${label}   ${pct(a.noAnswerAccuracy)}  ${num(a.p50Ms, 7)} ${num(a.p95Ms, 7)}`);
}

function printRelevance(runs) {
  console.log('\nTop result relevance p10 / p50 / p90 (calibrates the "not found" floor)');
  console.log(`${'config'.padEnd(26)}  B answerable          B unanswerable        A questions           out of corpus (B unans. on A)`);
  for (const run of runs) {
    for (const [name, r] of Object.entries(run.configs)) {
      if (r.unavailable) continue;
      const label = `${run.build}: ${name}`.padEnd(26);
      console.log(
        `${label}  ${dist(r.corpusB.topRelevance)}   ${dist(r.corpusBUnanswerable.topRelevance)}   ${dist(r.corpusA?.topRelevance)}   ${dist(r.outOfCorpus?.topRelevance)}`,
      );
    }
  }
}

const started = performance.now();
const gold = await loadGold(goldPath);
let squad = null;
if (existsSync(dataPath)) squad = await loadSquad(dataPath);
else console.log(`corpus A skipped: ${dataPath} not found (pass --data <SQuAD-style JSON>)`);
const squadQuestions = squad ? sample(squad.questions, questionCount, Number(flags.seed)) : [];
console.log(
  `km retrieval and answer evaluation, ${availableParallelism()} cores, Node ${process.version}\n` +
    (squad
      ? `corpus A: ${dataPath} (${squad.version}), ${squad.passages.length} paragraphs, ${squadQuestions.length} of ${squad.questions.length} questions (seed ${flags.seed})\n`
      : '') +
    `corpus B: ${goldPath}, ${gold.passages.length} passages, ${gold.answerable.length} answerable and ${gold.unanswerable.length} unanswerable questions`,
);

const runs = [];
if (flags.before) {
  const before = await loadKm(resolve(CWD, flags.before), 'before');
  // Corpus B only: the before/after comparison is about answers; vector retrieval is the same store.
  runs.push(await evaluateBuild(before, { gold, squad: null, squadQuestions: [], configs: retrievalConfigs().slice(0, 1) }));
}
const after = await loadKm(null, 'after');
const withModelReranker = Boolean(process.env.KM_RERANKER) && typeof after.core.HttpTextReranker === 'function';
runs.push(await evaluateBuild(after, { gold, squad, squadQuestions, configs: retrievalConfigs({ withModelReranker }) }));
if (!withModelReranker)
  console.log('hybrid+model: skipped (set KM_RERANKER=cohere|jina|voyage and KM_RERANKER_API_KEY, with a build that has HttpTextReranker)');

if (squad)
  printRetrieval(`Retrieval, corpus A (${squadQuestions.length} SQuAD questions, gold = own paragraph, document level)`, runs, 'corpusA');
printRetrieval(`Retrieval, corpus B (${gold.answerable.length} answerable questions)`, runs, 'corpusB');
printAnswers(runs);
printCorpusAAsks(runs);
printRelevance(runs);
console.log(`\ntotal ${seconds(started)} s`);

const resultsDir = join(BENCH, 'results');
await mkdir(resultsDir, { recursive: true });
const file = join(resultsDir, 'rag-eval.json');
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cores: availableParallelism(),
  dataPath,
  goldPath,
  seed: Number(flags.seed),
  runs,
};
await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(`results: ${file}`);
