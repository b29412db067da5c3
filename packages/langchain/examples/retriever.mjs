// Run: pnpm --filter @km/langchain example
// km in process with its embedded defaults (hashing embeddings, in-memory stores): no network, no key.
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
import { KernelMemoryBuilder, MemoryFilters, silentLogger } from '@km/core';
import { KernelMemoryRetriever, KernelMemoryVectorStoreReader } from '@km/langchain';

const memory = new KernelMemoryBuilder().withLogger(silentLogger).build();
await memory.importText('The Moon orbits Earth at an average distance of 384,400 km.', {
  documentId: 'moon',
  tags: { topic: ['space'] },
});
await memory.importText('Mars is the fourth planet from the Sun; iron oxide dust makes it red.', {
  documentId: 'mars',
  tags: { topic: ['space'] },
});
await memory.importText('Sourdough bread rises with wild yeast and lactic acid bacteria.', {
  documentId: 'bread',
  tags: { topic: ['cooking'] },
});

// A retriever: Documents with km's metadata, most relevant first.
const retriever = new KernelMemoryRetriever({ memory, limit: 2 });
for (const doc of await retriever.invoke('the average distance from Earth to the Moon')) {
  console.log(`${doc.metadata.relevance.toFixed(3)}  ${doc.metadata.documentId}/${doc.metadata.fileName}  ${doc.pageContent}`);
}

// In a chain: retrieval, then a step that formats the sources (a prompt and a model would follow).
const chain = RunnableSequence.from([
  new KernelMemoryRetriever({ memory, filters: MemoryFilters.byTag('topic', 'space'), limit: 1 }),
  RunnableLambda.from((docs) => docs.map((d) => `[${d.metadata.documentId}] ${d.pageContent}`).join('\n')),
]);
console.log(`chain: ${await chain.invoke('Why is Mars red?')}`);

// The VectorStore-style read API.
const store = new KernelMemoryVectorStoreReader({ memory });
const hits = await store.similaritySearchWithScore('bread yeast', 1, { topic: ['cooking'] });
console.log(`similaritySearchWithScore: ${hits.map(([d, score]) => `${d.metadata.documentId} ${score.toFixed(3)}`).join(', ')}`);
const viaStore = await store.asRetriever({ k: 1 }).invoke('the distance to the Moon');
console.log(`asRetriever: ${viaStore[0]?.metadata.documentId}`);
