import { describe, expect, it } from 'vitest';
import { MemoryFilters } from '@km/core';
import { memoryTools } from '../src/index.js';
import { INDEX, MEMORY_KINDS, serverlessMemory, useCorpusMemory, waitUntilReady } from './memories.js';

/** What the AI SDK passes to `execute` besides the input. */
const call = (id = 'call-1') => ({ toolCallId: id, messages: [], context: {} });

describe.each(MEMORY_KINDS)('memoryTools over %s', (kind) => {
  const memory = useCorpusMemory(kind);

  it('searchMemory returns passages with citations, most relevant first', async () => {
    const tools = memoryTools(memory(), { index: INDEX, readOnly: true });
    const out = await tools.searchMemory.execute({ query: 'distance of the Moon orbit around Earth' }, call());
    expect(out.noResult).toBe(false);
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results[0]).toMatchObject({
      documentId: 'moon',
      fileName: 'moon.md',
      index: INDEX,
      link: expect.stringMatching(/^adapters\/moon\//),
      partitionNumber: 0,
      tags: { topic: ['space'], team: ['astro'] },
    });
    expect(out.results[0]?.text).toContain('384,400 km');
    expect(out.results[0]?.sourceUrl).toEqual(expect.any(String));
    expect(out.results[0]?.page).toBeUndefined();
    const relevances = out.results.map((r) => r.relevance);
    expect(relevances).toEqual([...relevances].sort((a, b) => b - a));
    // The reserved tags stay inside km.
    for (const r of out.results) expect(Object.keys(r.tags).some((k) => k.startsWith('__'))).toBe(false);
  });

  it("searchMemory narrows by the model's tags", async () => {
    const tools = memoryTools(memory(), { index: INDEX, readOnly: true });
    const out = await tools.searchMemory.execute({ query: 'planet Mars Moon Earth', tags: { team: 'geo' } }, call());
    expect(out.results.map((r) => r.documentId)).toEqual(['mars']);
    const both = await tools.searchMemory.execute({ query: 'planet Mars Moon Earth', tags: { topic: ['space'], team: 'astro' } }, call());
    expect(both.results.map((r) => r.documentId)).toEqual(['moon']);
  });

  it('a configured scope is narrowed by the model, never widened', async () => {
    const tools = memoryTools(memory(), { index: INDEX, readOnly: true, filters: [MemoryFilters.byTag('topic', 'cooking')] });
    const scoped = await tools.searchMemory.execute({ query: 'bread Moon Mars' }, call());
    expect(new Set(scoped.results.map((r) => r.documentId))).toEqual(new Set(['bread']));
    const widened = await tools.searchMemory.execute({ query: 'bread Moon Mars', tags: { topic: 'space' } }, call());
    expect(widened).toMatchObject({ noResult: true, results: [] });
  });

  it('the configured limit caps what the model asks for', async () => {
    const tools = memoryTools(memory(), { index: INDEX, readOnly: true, limit: 2 });
    const many = await tools.searchMemory.execute({ query: 'the Moon Mars bread', limit: 10 }, call());
    expect(many.results).toHaveLength(2);
    const one = await tools.searchMemory.execute({ query: 'the Moon Mars bread', limit: 1 }, call());
    expect(one.results).toHaveLength(1);
  });

  it('askMemory answers from the documents, with citations', async () => {
    const tools = memoryTools(memory(), { index: INDEX, readOnly: true });
    const out = await tools.askMemory.execute({ question: 'Where does the red color of Mars come from?' }, call());
    expect(out.noResult).toBe(false);
    expect(out.answer).toContain('iron oxide');
    expect(out.citations[0]).toMatchObject({ documentId: 'mars', fileName: 'mars.txt', tags: { team: ['geo'] } });
    expect(out.citations[0]?.relevance).toBeGreaterThan(0);
  });

  it('askMemory says when the documents hold no answer', async () => {
    const tools = memoryTools(memory(), { index: INDEX, readOnly: true });
    const out = await tools.askMemory.execute(
      { question: 'Where does the red color of Mars come from?', tags: { team: 'nobody' } },
      call(),
    );
    expect(out.noResult).toBe(true);
    expect(out.citations).toEqual([]);
  });

  it('importText stores text with the configured and the requested tags; readOnly has no importText', async () => {
    expect(Object.keys(memoryTools(memory(), { readOnly: true })).sort()).toEqual(['askMemory', 'searchMemory']);
    const tools = memoryTools(memory(), { index: INDEX, tags: { owner: ['agent'] } });
    const out = await tools.importText.execute(
      { text: 'The comet Hale-Bopp was visible to the naked eye for 18 months.', documentId: 'comet', tags: { topic: 'space' } },
      call(),
    );
    expect(out).toEqual({ documentId: 'comet', index: INDEX });
    await waitUntilReady(memory(), 'comet');
    const found = await tools.searchMemory.execute({ query: 'comet Hale-Bopp naked eye', tags: { owner: 'agent' } }, call());
    expect(found.results.map((r) => r.documentId)).toEqual(['comet']);
    expect(found.results[0]?.tags).toEqual({ owner: ['agent'], topic: ['space'] });
    await memory().deleteDocument('comet', INDEX);
  });
});

describe('memoryTools options', () => {
  it('refuses a limit that is not a positive integer', () => {
    expect(() => memoryTools(serverlessMemory(), { limit: 0 })).toThrow(RangeError);
    expect(() => memoryTools(serverlessMemory(), { limit: 1.5 })).toThrow(RangeError);
  });
});
