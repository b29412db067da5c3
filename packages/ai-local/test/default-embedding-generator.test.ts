import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DefaultEmbeddingGenerator, HashingEmbeddingGenerator, KernelMemoryBuilder, silentLogger } from '@km/core';
import { afterAll, describe, expect, it } from 'vitest';
import { UniversalSentenceEncoderGenerator } from '../src/index.js';

describe('DefaultEmbeddingGenerator (core) with @km/ai-local installed', () => {
  const found = new DefaultEmbeddingGenerator({ resolveFrom: [import.meta.url], logger: silentLogger });
  afterAll(() => found.close());

  it('finds this package and loads Universal Sentence Encoder lite', async () => {
    await found.ready();
    expect(found.current?.constructor.name).toBe('UniversalSentenceEncoderGenerator');
    expect(found.modelName).toBe('local/universal-sentence-encoder-lite');
    expect(found.dimensions).toBe(512);
    expect((await found.generateEmbeddings(['hello']))[0]).toHaveLength(512);
  });

  it('falls back to hashing with a warning that says why when the package is missing', () => {
    // A fresh process without NODE_PATH (pnpm's bin shims set one that reaches every package).
    const core = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('@km/core/package.json')), 'dist/index.js')).href;
    const script = `
      const { DefaultEmbeddingGenerator } = await import(${JSON.stringify(core)});
      const warnings = [];
      const logger = { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) };
      const g = new DefaultEmbeddingGenerator({ resolveFrom: ['/nonexistent/app/main.js'], logger });
      await g.ready();
      console.log(JSON.stringify({ chosen: g.current.constructor.name, model: g.modelName, warnings }));`;
    const env = { ...process.env };
    delete env.NODE_PATH;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' }));
    expect(out.chosen).toBe('HashingEmbeddingGenerator');
    expect(out.model).toBe(new HashingEmbeddingGenerator().modelName);
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toContain('(@km/ai-local is not installed); using hashing embeddings');
  });

  it('reading its settings before it is ready is a clear error', () => {
    expect(() => new DefaultEmbeddingGenerator().maxTokens).toThrow(/await ready\(\) first/);
  });
});

describe('MemoryServerless on the local model', () => {
  const embeddings = new UniversalSentenceEncoderGenerator({ workers: 2 });
  afterAll(() => embeddings.close());

  it('finds a document by meaning, with no word in common with the question', async () => {
    const memory = new KernelMemoryBuilder().withLogger(silentLogger).withEmbeddingGenerator(embeddings).build();
    await memory.importText('Our office dog, a golden retriever, loves long walks in the park.', { documentId: 'pets' });
    await memory.importText('Invoices must be paid within thirty days of receipt.', { documentId: 'billing' });
    await memory.importText('The espresso machine on the third floor is out of order.', { documentId: 'kitchen' });
    const result = await memory.search('Which puppy enjoys strolling outdoors?', { limit: 1, minRelevance: 0 });
    expect(result.results[0]?.documentId).toBe('pets');
    const coffee = await memory.search('broken coffee maker', { limit: 1, minRelevance: 0 });
    expect(coffee.results[0]?.documentId).toBe('kitchen');
  });
});
