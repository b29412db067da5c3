// Local embedding throughput: Universal Sentence Encoder lite (@km/ai-local).
//
// For passages of about 100 and about 1000 tokens (cl100k) it prints passages per second for
//   raw      the model called directly in one loop on the main thread (batches of 16)
//   1 / 2 w  UniversalSentenceEncoderGenerator with 1 and 2 worker threads, called the way the
//            pipeline calls it (batches of 16, 4 calls in flight)
//   pipeline the gen_embeddings step of a MemoryServerless (2 workers), timed around the step
// and the pipeline's figure as a share of the best raw figure (target: at least 90%).
//
//   pnpm --filter @km/bench bench:embeddings        KM_BENCH_SCALE=2 for twice the passages
import { availableParallelism } from 'node:os';
import { CL100KTokenizer, KernelMemoryBuilder, silentLogger } from '@km/core';
import { GenerateEmbeddingsHandler, mapWithConcurrency, batches } from '@km/core/connector';
import { loadUseModel, UniversalSentenceEncoderGenerator } from '@km/ai-local';

const scale = Number(process.env.KM_BENCH_SCALE ?? 1);
const tokenizer = new CL100KTokenizer();
const WORDS = (
  'the memory service ingests documents and answers questions with citations while workers split text into ' +
  'partitions embed them and store records in a vector database that supports filters tags and exact search over ' +
  'many indexes for teams who build assistants agents and search tools on private data in their own cloud ' +
  'weather markets gardens rivers engines bridges music history medicine travel cooking energy climate ' +
  'quickly carefully often rarely because although therefore meanwhile'
).split(' ');

function seeded(seed) {
  return () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** Passages of about `tokens` cl100k tokens, each a run of sentences. */
function passages(count, tokens, seed) {
  const random = seeded(seed);
  return Array.from({ length: count }, () => {
    let text = '';
    while (tokenizer.countTokens(text) < tokens) {
      const length = 8 + Math.floor(random() * 10);
      const words = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]);
      text += `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}. `;
    }
    return text.trim();
  });
}

async function rate(count, fn) {
  const started = performance.now();
  await fn();
  return (count / (performance.now() - started)) * 1000;
}

async function rawModel(texts) {
  const model = await loadUseModel();
  await model.embed(texts.slice(0, 2));
  return rate(texts.length, async () => {
    for (const batch of batches(texts, 16)) await model.embed(batch);
  });
}

async function generator(texts, workers) {
  const g = new UniversalSentenceEncoderGenerator({ workers, maxBatchSize: 16 });
  await g.ready();
  await g.generateEmbeddings(texts.slice(0, 2 * workers));
  try {
    return await rate(texts.length, () => mapWithConcurrency(batches(texts, 16), 4, (batch) => g.generateEmbeddings(batch)));
  } finally {
    await g.close();
  }
}

async function pipeline(texts, tokens) {
  const embeddings = new UniversalSentenceEncoderGenerator({ workers: 2, maxBatchSize: 16 });
  await embeddings.ready();
  let stepMs = 0;
  let embedded = 0;
  const timed = (context) => {
    const inner = new GenerateEmbeddingsHandler(context);
    return {
      stepName: inner.stepName,
      async invoke(p, signal) {
        const started = performance.now();
        const outcome = await inner.invoke(p, signal);
        stepMs += performance.now() - started;
        for (const file of Object.values(outcome.pipeline.files ?? [])) {
          embedded += Object.values(file.generated_files ?? {}).filter((f) => f.artifact_type === 'text_embedding_vector').length;
        }
        return outcome;
      },
    };
  };
  const memory = new KernelMemoryBuilder()
    .withLogger(silentLogger)
    .withEmbeddingGenerator(embeddings)
    .withPartitionOptions({ maxTokensPerChunk: Math.round(tokens * 1.3), overlapTokens: 0 })
    .withHandler(timed)
    .build();
  // One document whose paragraphs are the passages: the step embeds them all in one run.
  await memory.importText(texts.join('\n\n'), { documentId: `bench-${tokens}` });
  await embeddings.close();
  return { rate: (embedded / stepMs) * 1000, embedded };
}

console.log(`Universal Sentence Encoder lite, ${availableParallelism()} cores, Node ${process.version}\n`);
for (const [tokens, count] of [
  [100, 96 * scale],
  [1000, 24 * scale],
]) {
  const texts = passages(count, tokens, tokens);
  const mean = Math.round(texts.reduce((n, t) => n + tokenizer.countTokens(t), 0) / texts.length);
  const raw = await rawModel(texts);
  const one = await generator(texts, 1);
  const two = await generator(texts, 2);
  const step = await pipeline(texts, tokens);
  const best = Math.max(raw, one, two);
  console.log(`passages of ~${tokens} tokens (mean ${mean}), ${count} passages`);
  console.log(`  raw model, one loop     ${raw.toFixed(1).padStart(7)} passages/s`);
  console.log(`  generator, 1 worker     ${one.toFixed(1).padStart(7)} passages/s`);
  console.log(`  generator, 2 workers    ${two.toFixed(1).padStart(7)} passages/s  (${(two / one).toFixed(2)}x one worker)`);
  console.log(`  pipeline gen_embeddings ${step.rate.toFixed(1).padStart(7)} passages/s  (${step.embedded} partitions)`);
  console.log(
    `  pipeline / best raw-or-generator figure: ${((step.rate / best) * 100).toFixed(0)}%; pipeline / raw loop: ${((step.rate / raw) * 100).toFixed(0)}%\n`,
  );
}
