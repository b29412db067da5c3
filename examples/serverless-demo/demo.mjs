// km serverless demo: the whole pipeline in this process on embedded defaults (files and
// vectors on disk, the offline Universal Sentence Encoder from @km/ai-local in worker threads,
// extractive answers): no key, no network.
//
//   pnpm start                          import the demo documents, run sample questions
//   pnpm start -- "your question"       ask your own question
//   KM_DATA_DIR=/tmp/km pnpm start      keep the data elsewhere (default: .km-data)
import { resolve } from 'node:path';
import { createDefaultEmbeddingGenerator } from '@km/ai-local';
import { KernelMemoryBuilder, MemoryFilters } from '@km/core';

const dataDir = resolve(process.env.KM_DATA_DIR ?? resolve(import.meta.dirname, '../../.km-data'));
// Core loads no model by itself: the application picks its embeddings (here the offline one).
const embeddings = createDefaultEmbeddingGenerator();
const memory = new KernelMemoryBuilder().withDataDirectory(dataDir).withEmbeddingGenerator(embeddings).build();
await embeddings.ready();
console.log(`embeddings: ${embeddings.modelName}`);

const documents = [
  {
    id: 'moon',
    name: 'moon.md',
    tags: { topic: ['space'] },
    text: `# The Moon

The Moon is Earth's only natural satellite. It orbits at an average distance of 384,400 km,
about 30 times the diameter of Earth, and always shows the same face to us.

## Surface

The lunar surface is covered in regolith, a layer of dust and broken rock, and marked by
craters left by impacts. The dark plains, called maria, are ancient lava flows.

## Exploration

Apollo 11 landed the first humans on the Moon in July 1969. Neil Armstrong and Buzz Aldrin
walked on the surface while Michael Collins stayed in lunar orbit.`,
  },
  {
    id: 'carbon',
    name: 'carbon.txt',
    tags: { topic: ['chemistry'] },
    text: `Carbon is a chemical element with symbol C and atomic number 6. It is nonmetallic and
tetravalent, so it can form four covalent bonds. Diamond and graphite are two allotropes of
carbon: diamond is the hardest natural material, graphite is soft and conducts electricity.
Carbon is the fourth most abundant element in the universe by mass.`,
  },
  {
    id: 'km',
    name: 'about-km.html',
    tags: { topic: ['software'] },
    text: `<html><head><title>About km</title></head><body><h1>About km</h1>
<p>km ingests documents, splits them into partitions, embeds them and stores memory records.</p>
<h2>Pipeline</h2><ul><li>extract: decode files into text</li><li>partition: chunk text by tokens</li>
<li>gen_embeddings: compute vectors</li><li>save_records: write records to memory DBs</li></ul></body></html>`,
  },
];

const started = performance.now();
for (const doc of documents) {
  if (await memory.isDocumentReady(doc.id)) continue;
  await memory.importDocument({ name: doc.name, data: doc.text }, { documentId: doc.id, tags: doc.tags });
  console.log(`imported ${doc.id} (${doc.name})`);
}
console.log(`data in ${dataDir}; ready in ${Math.round(performance.now() - started)} ms\n`);

const questions = process.argv.slice(2).filter((a) => a !== '--');
if (questions.length === 0) questions.push('What covers the surface of the Moon?', 'Which allotropes does carbon have?');

for (const question of questions) {
  const answer = await memory.ask(question);
  console.log(`Q: ${question}\n${answer.text}`);
  for (const source of answer.relevantSources) {
    const best = Math.max(...source.partitions.map((p) => p.relevance));
    console.log(`   cited: ${source.sourceName} (document ${source.documentId}, relevance ${best.toFixed(2)})`);
  }
  console.log();
}

const filtered = await memory.search('element', { filter: MemoryFilters.byTag('topic', 'chemistry') });
console.log(`search "element" with topic=chemistry: ${filtered.results.map((c) => c.documentId).join(', ') || 'nothing'}`);
console.log('\nThe HTTP service (port 9001) arrives with @km/service; this demo runs km in-process.');
