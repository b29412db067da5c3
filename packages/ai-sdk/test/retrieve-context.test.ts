import { describe, expect, it } from 'vitest';
import { MemoryFilters } from '@km/core';
import { DEFAULT_RAG_INSTRUCTIONS, retrieveContext } from '../src/index.js';
import { INDEX, MEMORY_KINDS, useCorpusMemory } from './memories.js';

describe.each(MEMORY_KINDS)('retrieveContext over %s', (kind) => {
  const memory = useCorpusMemory(kind);

  it('returns the top passages with source and relevance, and a numbered context', async () => {
    const out = await retrieveContext(memory(), 'distance of the Moon orbit around Earth', { index: INDEX, limit: 2 });
    expect(out.passages).toHaveLength(2);
    expect(out.passages[0]).toMatchObject({ documentId: 'moon', source: 'moon.md', text: expect.stringContaining('384,400 km') });
    expect(out.passages[0]?.relevance).toBeGreaterThanOrEqual(out.passages[1]?.relevance ?? Number.NaN);
    expect(out.context).toBe(out.passages.map((p, i) => `[${i + 1}] ${p.source}\n${p.text.trim()}`).join('\n\n'));
    expect(out.context.startsWith('[1] moon.md\n')).toBe(true);
    expect(out.system).toBe(`${DEFAULT_RAG_INSTRUCTIONS}\n\n${out.context}`);
  });

  it('filters narrow the passages; instructions replace the default', async () => {
    const out = await retrieveContext(memory(), 'the Moon Mars bread', {
      index: INDEX,
      filters: [MemoryFilters.byTag('topic', 'cooking')],
      instructions: 'Use the sources.',
    });
    expect(out.passages.map((p) => p.documentId)).toEqual(['bread']);
    expect(out.system).toBe(`Use the sources.\n\n[1] bread.txt\n${out.passages[0]?.text.trim()}`);
  });

  it('nothing matched: empty passages and context, the instructions alone', async () => {
    const out = await retrieveContext(memory(), 'the Moon', { index: INDEX, filters: [MemoryFilters.byTag('topic', 'none')] });
    expect(out).toMatchObject({ passages: [], context: '', system: DEFAULT_RAG_INSTRUCTIONS });
  });
});
