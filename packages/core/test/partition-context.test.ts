import { describe, expect, it } from 'vitest';
import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  PayloadFields,
  SimpleVectorDb,
  silentLogger,
  type MemoryRecord,
} from '../src/index.js';
import { allRecords, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-context-');

const rules = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The ${topic} rule number ${i} applies to every employee of the company.`).join(' ');

const HANDBOOK = [
  '# Employee handbook',
  rules('welcome', 8),
  '## Leave',
  rules('leave', 8),
  '## Parental leave',
  rules('parental', 8),
].join('\n\n');

async function serverless() {
  const db = new SimpleVectorDb();
  const memory = new KernelMemoryBuilder()
    .withDataDirectory(await tempDir())
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withMemoryDb(db)
    .withPartitionOptions({ maxTokensPerChunk: 200, overlapTokens: 0 })
    .withLogger(silentLogger)
    .build();
  return { memory, db };
}

const byPart = (records: MemoryRecord[]) =>
  [...records].sort((a, b) => Number(a.tags.__part_n![0]) - Number(b.tags.__part_n![0])).map((r) => r.payload);

describe('partition context in memory records', () => {
  it('a markdown document: later sections carry Title › Section, text starts with context and a blank line', async () => {
    const { memory, db } = await serverless();
    await memory.importDocument({ name: 'handbook.md', data: HANDBOOK }, { documentId: 'handbook' });
    const payloads = byPart(await allRecords(db));
    expect(payloads.map((p) => p[PayloadFields.context])).toEqual([undefined, 'Employee handbook', 'Employee handbook']);
    expect(payloads[0]).not.toHaveProperty(PayloadFields.context);
    expect(String(payloads[0]!.text).startsWith('# Employee handbook\n\n')).toBe(true);
    expect(payloads[2]!.text).toBe(`Employee handbook\n\n## Parental leave\n\n${rules('parental', 8)}`);
    for (const payload of payloads) {
      const context = payload[PayloadFields.context];
      if (typeof context === 'string' && context !== '') expect(String(payload.text).startsWith(`${context}\n\n`)).toBe(true);
    }
  });

  it('plain text: the title line becomes the context of later chunks; a short text has none; the chunk header stays under it', async () => {
    const { memory, db } = await serverless();
    await memory.importText(`Travel policy\n\n${rules('travel', 30)}`, {
      documentId: 'travel',
      args: { custom_partitioning_chunk_header_str: 'Source: HR' },
    });
    await memory.importText('Carbon is an element.', { documentId: 'carbon' });
    const records = await allRecords(db);
    const travel = byPart(records.filter((r) => r.tags.__document_id![0] === 'travel'));
    expect(travel.length).toBeGreaterThan(2);
    expect(travel[0]).not.toHaveProperty(PayloadFields.context);
    expect(String(travel[0]!.text).startsWith('Source: HR\nTravel policy\n\n')).toBe(true);
    for (const payload of travel.slice(1)) {
      expect(payload[PayloadFields.context]).toBe('Travel policy');
      expect(String(payload.text).startsWith('Travel policy\n\nSource: HR\n')).toBe(true);
    }
    const carbon = records.find((r) => r.tags.__document_id![0] === 'carbon')!;
    expect(carbon.payload).not.toHaveProperty(PayloadFields.context);
    expect(carbon.payload.text).toBe('Carbon is an element.');
  });

  it('search finds a chunk by the section it lies under', async () => {
    const { memory } = await serverless();
    const text = ['# Employee handbook', '## Parental leave', rules('parental', 30)].join('\n\n');
    await memory.importDocument({ name: 'handbook.md', data: text }, { documentId: 'handbook' });
    const found = await memory.search('employee handbook parental leave', { limit: 10, minRelevance: -1 });
    const partitions = found.results.flatMap((c) => c.partitions);
    expect(partitions.length).toBeGreaterThan(2);
    expect(partitions.filter((p) => p.text.startsWith('Employee handbook › Parental leave\n\n')).length).toBe(partitions.length - 1);
  });
});
