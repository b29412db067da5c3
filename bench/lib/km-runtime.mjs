// Loads the km build under evaluation: this workspace's @km/core and @km/ai-local, or those of
// another checkout (`--before /tmp/km-before`), imported from its `packages/*/dist` by file URL so
// that both builds run side by side in one process.
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `{ label, core, aiLocal }` of a build: the workspace's when `checkout` is missing, else the
 * checkout's built packages (it must have run `pnpm --filter @km/core --filter @km/ai-local build`).
 */
export async function loadKm(checkout, label = checkout ? 'before' : 'this build') {
  if (!checkout) return { label, core: await import('@km/core'), aiLocal: await import('@km/ai-local') };
  const dist = (pkg) => join(resolve(checkout), 'packages', pkg, 'dist', 'index.js');
  for (const pkg of ['core', 'ai-local']) {
    try {
      await access(dist(pkg));
    } catch {
      throw new Error(`${dist(pkg)} is missing: build that checkout first (pnpm --filter @km/core --filter @km/ai-local build)`);
    }
  }
  return {
    label,
    core: await import(pathToFileURL(dist('core')).href),
    aiLocal: await import(pathToFileURL(dist('ai-local')).href),
  };
}

/**
 * A serverless memory of build `km` keeping its files and vectors in `directory`, with the offline
 * embedding model and, when given, a reranker. Returns the memory and its embedding generator
 * (close it when done).
 */
export function buildMemory(km, directory, { reranker } = {}) {
  const embeddings = km.aiLocal.createDefaultEmbeddingGenerator();
  let builder = new km.core.KernelMemoryBuilder()
    .withLogger(km.core.silentLogger)
    .withDataDirectory(directory)
    .withEmbeddingGenerator(embeddings);
  if (reranker) builder = builder.withReranker(reranker);
  return { memory: builder.build(), embeddings };
}

/**
 * Releases what a serverless memory holds, as the service does on shutdown: the memory DBs'
 * files and pools and the content storage's clients (the embedding generator is closed by its owner).
 */
export async function closeMemory(memory) {
  const context = memory.orchestrator.context;
  for (const db of context.memoryDbs) await db.close?.();
  await context.contentStorage.close?.();
}

/** Imports each document (`{ id, text, tags? }`) as a text document of `index`, `concurrency` at a time. */
export async function importDocuments(memory, index, documents, concurrency = 8) {
  let next = 0;
  const worker = async () => {
    while (next < documents.length) {
      const document = documents[next++];
      await memory.importText(document.text, { index, documentId: document.id, tags: document.tags ?? {} });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
