// Run: pnpm --filter @km/ai-sdk example
// km in process with its embedded defaults (hashing embeddings, in-memory stores): no network, no key.
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { KernelMemoryBuilder, silentLogger } from '@km/core';
import { memoryTools, retrieveContext } from '@km/ai-sdk';

const memory = new KernelMemoryBuilder().withLogger(silentLogger).build();
await memory.importText('The Moon orbits Earth at an average distance of 384,400 km.', {
  documentId: 'moon',
  tags: { topic: ['space'] },
});
await memory.importText('Sourdough bread rises with wild yeast and lactic acid bacteria.', {
  documentId: 'bread',
  tags: { topic: ['cooking'] },
});

// 1. The tools, called the way the AI SDK calls them.
const tools = memoryTools(memory, { readOnly: true, limit: 3 });
const found = await tools.searchMemory.execute(
  { query: 'the average distance from Earth to the Moon' },
  { toolCallId: 'demo', messages: [], context: {} },
);
console.log('searchMemory:');
for (const r of found.results) console.log(`  ${r.relevance.toFixed(3)}  ${r.documentId}/${r.fileName}  ${r.text}`);

const answer = await tools.askMemory.execute(
  { question: 'What does sourdough bread rise with?' },
  { toolCallId: 'demo', messages: [], context: {} },
);
console.log(`askMemory: ${answer.answer}`);
console.log(`  cited: ${answer.citations.map((c) => c.documentId).join(', ')}`);

// 2. Retrieval for a prompt: pass `system` to generateText({ model, system, prompt }).
const rag = await retrieveContext(memory, 'distance to the Moon', { limit: 2 });
console.log(`retrieveContext system prompt:\n${rag.system}\n`);

// 3. A generateText round. A scripted model stands in for a real one here (no network);
//    use e.g. `model: openai('gpt-4o-mini')` from @ai-sdk/openai in an application.
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const result = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((p) => p.type === 'tool-result');
    const usage = {
      inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 0, text: 0, reasoning: undefined },
    };
    if (!result) {
      const input = JSON.stringify({ question: 'How far is the Moon from Earth?' });
      return {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'askMemory', input }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    }
    const { answer: text, citations } = result.output.value;
    return {
      content: [{ type: 'text', text: `${text} (source: ${citations[0]?.documentId})` }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    };
  },
});
const { text, steps } = await generateText({ model, tools, stopWhen: stepCountIs(2), prompt: 'How far is the Moon?' });
console.log(`generateText: ${steps.length} steps, tool ${steps[0].toolCalls[0]?.toolName}`);
console.log(`  ${text}`);
