// Retrieval and answer evaluation of km's search modes with the offline model (USE lite) and the
// built-in SimpleVectorDb, serverless, in one process, on several sets (one table each):
//
//   squad       the SQuAD sample (../shared/datasets): its 570 paragraphs; 800 seeded questions
//               searched (gold = own paragraph), 200 asked (answers withheld: "not found" rate).
//   locomo      LoCoMo (../shared/datasets/locomo10.json): each conversation an index, each turn
//               a document; questions searched for their evidence turns (nDCG@10, recall@10),
//               asked (categories 1-4 answerable, 5 unanswerable by design).
//   gold        bench/data/gold-qa.json (written for this repository).
//   paraphrase  bench/data/paraphrase-qa.json: questions worded differently from their passages.
//   Off-topic questions (bench/data/off-topic-questions.json, the half never used to fit
//   anything) are asked of every set: the share answered "not found".
//
// Per set, per configuration (default = no mode given, lexical, vector, hybrid) and, with
// --before <checkout>, the default of another built checkout. Then ask's latency on an index of
// 1,000 passages. Which set fitted which setting: docs/adr/0003-answers-and-fusion.md.
//
//   pnpm --filter @km/bench bench:rag -- [--sets squad,locomo,gold,paraphrase] [--before /tmp/km-before]
//     [--squad path] [--locomo path] [--questions N] [--seed n]
//
// Relative paths are taken from the directory pnpm was started in. JSON results go to
// bench/results/rag-eval.json (not committed).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMemory, closeMemory, importDocuments, loadKm } from './lib/km-runtime.mjs';
import { loadLocomo } from './lib/locomo.mjs';
import { sample } from './lib/metrics.mjs';
import { loadOffTopic, loadQaSet } from './lib/qa-set.mjs';
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
    sets: { type: 'string', default: 'squad,locomo,gold,paraphrase' },
    squad: { type: 'string' },
    locomo: { type: 'string' },
    before: { type: 'string' },
    questions: { type: 'string', default: '800' },
    asks: { type: 'string', default: '200' },
    seed: { type: 'string', default: '16' },
  },
});
const DATASETS = resolve(ROOT, '../shared/datasets');
const squadPath = flags.squad ? resolve(CWD, flags.squad) : join(DATASETS, 'squad-v2-questions-sample.json');
const locomoPath = flags.locomo ? resolve(CWD, flags.locomo) : join(DATASETS, 'locomo10.json');
const wanted = new Set(flags.sets.split(',').map((s) => s.trim()));
const seed = Number(flags.seed);

const seconds = (since) => ((performance.now() - since) / 1000).toFixed(1);
const log = (message) => console.error(`[rag-eval] ${message}`);

/** LoCoMo conversations the off-topic questions are asked of (each costs 50 asks per configuration). */
const LOCOMO_OFF_TOPIC_INDEXES = 3;

/**
 * The sets: `{ name, indexes: [{ name, documents, search: questions, ask: questions }] }`, and
 * `cold`: questions asked nowhere else (SQuAD questions outside the sample, the off-topic
 * questions of the fitting half), for ask's latency without the query-embedding cache's help.
 */
async function loadSets() {
  const offTopicHalves = await loadOffTopic(join(BENCH, 'data/off-topic-questions.json'));
  const asOffTopic = (text) => ({ text, gold: [], answers: [], kind: 'offtopic' });
  const offTopic = offTopicHalves.report.map(asOffTopic);
  const cold = offTopicHalves.fit.map(asOffTopic);
  const sets = [];
  if (wanted.has('squad')) {
    if (!existsSync(squadPath)) console.log(`squad skipped: ${squadPath} not found (--squad <SQuAD-style JSON>)`);
    else {
      const squad = await loadSquad(squadPath);
      const questions = squad.questions.map((q) => ({ text: q.text, gold: [q.passageId], answers: q.answers, kind: 'squad' }));
      // One shuffle: the first N are searched, the next 150 are only timed on the 1,000-passage index.
      const drawn = sample(questions, Number(flags.questions) + 150, seed);
      const searched = drawn.slice(0, Number(flags.questions));
      cold.unshift(...drawn.slice(searched.length));
      sets.push({
        name: 'squad',
        about: `${squad.passages.length} paragraphs, ${searched.length} of ${questions.length} questions searched (seed ${seed})`,
        indexes: [
          {
            name: 'squad',
            documents: squad.passages.map((p) => ({ id: p.id, text: p.context, tags: { title: [p.title] } })),
            search: searched,
            ask: [...searched.slice(0, Number(flags.asks)), ...offTopic],
          },
        ],
      });
    }
  }
  if (wanted.has('locomo')) {
    if (!existsSync(locomoPath)) console.log(`locomo skipped: ${locomoPath} not found (--locomo <locomo10.json>)`);
    else {
      const conversations = await loadLocomo(locomoPath);
      sets.push({
        name: 'locomo',
        about: `${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.documents.length, 0)} turns, ${conversations.reduce((n, c) => n + c.questions.length, 0)} questions`,
        indexes: conversations.map((c, i) => ({
          name: c.name,
          documents: c.documents,
          search: c.questions,
          ask: [...c.questions, ...(i < LOCOMO_OFF_TOPIC_INDEXES ? offTopic : [])],
        })),
      });
    }
  }
  for (const name of ['gold', 'paraphrase']) {
    if (!wanted.has(name)) continue;
    const set = await loadQaSet(join(BENCH, `data/${name}-qa.json`), name);
    const answerable = set.questions.filter((q) => q.gold.length > 0).length;
    sets.push({
      name,
      about: `${set.documents.length} passages, ${answerable} answerable and ${set.questions.length - answerable} unanswerable questions`,
      indexes: [{ name, documents: set.documents, search: set.questions, ask: [...set.questions, ...offTopic] }],
    });
  }
  return { sets, cold };
}

/**
 * An index of 1,000 passages for ask's latency: SQuAD paragraphs, then LoCoMo turns and QA
 * passages to fill it; asked the `cold` questions (SQuAD ones first, then off-topic ones).
 */
function thousandIndex(sets, cold) {
  const documents = [];
  for (const set of sets) {
    for (const index of set.indexes) {
      for (const d of index.documents) if (documents.length < 1000) documents.push({ ...d, id: `${index.name}-${d.id}` });
    }
  }
  return { name: 'thousand', documents, ask: cold.slice(0, 200) };
}

async function importSets(memory, sets, label) {
  for (const set of sets) {
    const started = performance.now();
    for (const index of set.indexes) await importDocuments(memory, index.name, index.documents);
    log(`${label}: ${set.name} imported in ${seconds(started)} s`);
  }
}

async function evaluateBuild(km, { sets, cold }, configs) {
  const directory = await mkdtemp(join(tmpdir(), 'km-rag-eval-'));
  const { memory, embeddings } = buildMemory(km, directory);
  const out = { build: km.label, sets: {} };
  try {
    await importSets(memory, sets, km.label);
    const probes = sets[0].indexes[0].search.slice(0, 6).map((q) => q.text);
    const reasons = await unsupportedReasons(memory, configs, sets[0].indexes[0].name, probes);
    for (const set of sets) {
      out.sets[set.name] = {};
      for (const config of configs) {
        if (reasons[config.name]) {
          out.sets[set.name][config.name] = { unavailable: reasons[config.name] };
          continue;
        }
        const started = performance.now();
        const searchRows = [];
        const askRows = [];
        for (const index of set.indexes) {
          searchRows.push(...(await runSearches(memory, index.name, index.search, config.options)));
          askRows.push(...(await runAsks(memory, index.name, index.ask, config.options)));
        }
        out.sets[set.name][config.name] = { retrieval: summarizeSearches(searchRows), answers: summarizeAsks(askRows) };
        log(`${km.label} ${set.name} ${config.name}: ${seconds(started)} s`);
      }
    }
    const thousand = thousandIndex(sets, cold);
    if (thousand.documents.length >= 1000) {
      await importDocuments(memory, thousand.name, thousand.documents);
      out.thousand = summarizeAsks(await runAsks(memory, thousand.name, thousand.ask, {}));
    }
  } finally {
    await closeMemory(memory);
    await embeddings.close?.();
    await rm(directory, { recursive: true, force: true });
  }
  return out;
}

const pct = (x) => (x === null || x === undefined ? '    - ' : `${(x * 100).toFixed(1).padStart(5)}%`);
const num = (x, w = 6) => (x === null || x === undefined ? '-'.padStart(w) : String(x).padStart(w));

function printSet(set, runs) {
  console.log(`\n## ${set.name}: ${set.about}`);
  console.log(
    `${'config'.padEnd(22)} nDCG@10  R@10    MRR@10  R@1     search p50 | false-NF gold-in first-quote off-topic-refused unans-refused ask p50/p95 ms`,
  );
  for (const run of runs) {
    for (const [name, r] of Object.entries(run.sets[set.name] ?? {})) {
      const label = `${run.build === 'this build' ? '' : `${run.build}: `}${name}`.padEnd(22);
      if (r.unavailable) {
        console.log(`${label} ${r.unavailable}`);
        continue;
      }
      const s = r.retrieval;
      const a = r.answers;
      console.log(
        `${label} ${num(s.ndcgAt10, 7)} ${pct(s.recallAt10)} ${num(s.mrrAt10, 7)} ${pct(s.recallAt1)} ${num(s.p50Ms, 7)} ms | ${pct(a.falseNotFound)}  ${pct(a.goldIn)} ${pct(a.goldInFirst)}   ${pct(a.offTopicRefused)} (${a.offTopic})    ${pct(a.unanswerableRefused)} (${a.unanswerable}) ${num(a.p50Ms)} / ${a.p95Ms}`,
      );
    }
  }
}

const started = performance.now();
const loaded = await loadSets();
const sets = loaded.sets;
if (sets.length === 0) throw new Error('no set to evaluate (--sets)');
console.log(`km retrieval and answer evaluation, ${availableParallelism()} cores, Node ${process.version}, seed ${seed}`);
const runs = [];
if (flags.before) {
  const before = await loadKm(resolve(CWD, flags.before), 'before');
  runs.push(await evaluateBuild(before, loaded, retrievalConfigs().slice(0, 1)));
}
const current = await loadKm(null, 'this build');
const withModelReranker = Boolean(process.env.KM_RERANKER) && typeof current.core.HttpTextReranker === 'function';
runs.push(await evaluateBuild(current, loaded, retrievalConfigs({ withModelReranker })));

for (const set of sets) printSet(set, runs);
console.log('\n## ask latency, 1,000 passages (SQuAD paragraphs, then LoCoMo turns), default mode, questions asked nowhere else');
for (const run of runs) {
  const t = run.thousand;
  if (t)
    console.log(
      `${run.build.padEnd(12)} p50 ${t.p50Ms} ms, p95 ${t.p95Ms} ms (${t.answerable} SQuAD and ${t.offTopic} off-topic questions)`,
    );
}
console.log(`\ntotal ${seconds(started)} s`);

const resultsDir = join(BENCH, 'results');
await mkdir(resultsDir, { recursive: true });
const file = join(resultsDir, 'rag-eval.json');
await writeFile(
  file,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: availableParallelism(), seed, squadPath, locomoPath, runs }, null, 2)}\n`,
);
console.log(`results: ${file}`);
