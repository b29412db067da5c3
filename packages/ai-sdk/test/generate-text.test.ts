import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { IKernelMemory } from '@km/core';
import { memoryTools, type SearchMemoryOutput } from '../src/index.js';
import { importCorpus, INDEX, serverlessMemory } from './memories.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

type CallOptions = MockLanguageModelV4['doGenerateCalls'][number];

/** The tool results the AI SDK sent back to the model, from the prompt of a call. */
function toolResults(options: CallOptions) {
  return options.prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).filter((p) => p.type === 'tool-result');
}

/**
 * A scripted model (it stands for the LLM only): first calls `searchMemory` with `input`, then
 * answers with the file name of the first passage the tool returned, or with the error it got.
 */
function scriptedModel(input: unknown): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const [result] = toolResults(options);
      if (!result) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'searchMemory', input: JSON.stringify(input) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      }
      const text =
        result.output.type === 'json'
          ? `Found in ${(result.output.value as unknown as SearchMemoryOutput).results[0]?.fileName}`
          : `Tool failed: ${result.output.type}`;
      return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
}

describe('memoryTools in a generateText round', () => {
  let memory: IKernelMemory;
  beforeAll(async () => {
    memory = serverlessMemory();
    await importCorpus(memory);
  });

  it('the model sees the tools with JSON schemas, calls searchMemory, and answers from its result', async () => {
    const model = scriptedModel({ query: 'distance of the Moon orbit around Earth' });
    const result = await generateText({
      model,
      tools: memoryTools(memory, { index: INDEX }),
      stopWhen: stepCountIs(2),
      prompt: 'How far is the Moon?',
    });

    const offered = model.doGenerateCalls[0]?.tools ?? [];
    expect(offered.map((t) => t.name).sort()).toEqual(['askMemory', 'importText', 'searchMemory']);
    const search = offered.find((t) => t.name === 'searchMemory');
    expect(search).toMatchObject({ type: 'function', description: expect.stringContaining('Search') });
    expect(search && 'inputSchema' in search ? search.inputSchema : undefined).toMatchObject({
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, tags: expect.any(Object), limit: expect.any(Object) },
    });

    expect(result.steps).toHaveLength(2);
    const [call] = result.steps[0]?.toolResults ?? [];
    expect(call?.toolName).toBe('searchMemory');
    expect((call?.output as SearchMemoryOutput | undefined)?.results[0]).toMatchObject({ documentId: 'moon', fileName: 'moon.md' });
    expect(result.text).toBe('Found in moon.md');
  });

  it('arguments that break the schema become a tool error for the model, not a crash', async () => {
    const model = scriptedModel({ query: '', limit: 'many' });
    const result = await generateText({
      model,
      tools: memoryTools(memory, { index: INDEX, readOnly: true }),
      stopWhen: stepCountIs(2),
      prompt: 'How far is the Moon?',
    });
    expect(result.steps[0]?.content.some((p) => p.type === 'tool-error')).toBe(true);
    expect(result.steps[0]?.toolResults).toEqual([]);
    expect(result.text).toMatch(/^Tool failed: error-/);
  });
});
