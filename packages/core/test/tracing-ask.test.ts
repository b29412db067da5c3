import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { inMemory, ScriptedTextGenerator } from './helpers.js';
import { onlySpan, parentOf, useTracing } from './tracing-helpers.js';

const exporter = useTracing();

async function plutoMemory() {
  const generator = new ScriptedTextGenerator(() => 'Pluto is a dwarf planet.');
  const { memory } = inMemory((b) => b.withTextGenerator(generator));
  await memory.importText('Pluto is a dwarf planet in the Kuiper belt.', { documentId: 'pluto' });
  exporter.reset();
  return memory;
}

describe('tracing ask and search', () => {
  it('ask has a span whose children are the query embedding, the memory-DB search and the generation with its tokens', async () => {
    const memory = await plutoMemory();
    const answer = await memory.ask('What is Pluto?');
    expect(answer.noResult).toBe(false);
    const spans = exporter.getFinishedSpans();
    const ask = onlySpan(spans, 'km.ask');
    expect(ask.attributes['km.index']).toBe('default');
    expect(ask.parentSpanContext).toBeUndefined();

    const embedding = onlySpan(spans, 'km.embeddings');
    expect(parentOf(spans, embedding)).toBe(ask);
    expect(embedding.attributes).toMatchObject({
      'gen_ai.operation.name': 'embeddings',
      'km.embeddings.purpose': 'query',
      'km.embeddings.texts': 1,
    });
    expect(embedding.attributes['km.tokens.input']).toBeGreaterThan(0);

    const search = onlySpan(spans, 'km.memory_db.search');
    expect(parentOf(spans, search)).toBe(ask);
    expect(search.attributes).toMatchObject({ 'km.index': 'default', 'km.memory_db': expect.any(String) });

    const generation = onlySpan(spans, 'km.text_generation');
    expect(parentOf(spans, generation)).toBe(ask);
    // The scripted generator reports 11 tokens in and 5 out, as a service would.
    expect(generation.attributes).toMatchObject({
      'gen_ai.operation.name': 'text_completion',
      'gen_ai.request.model': 'scripted',
      'km.tokens.input': 11,
      'km.tokens.output': 5,
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 5,
    });
    for (const span of [embedding, search, generation]) expect(span.spanContext().traceId).toBe(ask.spanContext().traceId);
    expect(answer.tokenUsage[0]).toMatchObject({ serviceTokensIn: 11, serviceTokensOut: 5 });
  });

  it('ask streaming keeps the span open until the last chunk', async () => {
    const memory = await plutoMemory();
    let chunks = 0;
    for await (const _ of memory.askStreaming('What is Pluto?')) {
      chunks++;
      expect(exporter.getFinishedSpans().some((s) => s.name === 'km.ask')).toBe(false);
    }
    expect(chunks).toBeGreaterThan(1);
    expect(onlySpan(exporter.getFinishedSpans(), 'km.ask').status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('search has a span with the embedding and the memory-DB search as children', async () => {
    const memory = await plutoMemory();
    const result = await memory.search('dwarf planet');
    const spans = exporter.getFinishedSpans();
    const search = onlySpan(spans, 'km.search');
    expect(search.attributes['km.results']).toBe(result.results.length);
    expect(parentOf(spans, onlySpan(spans, 'km.embeddings'))).toBe(search);
    expect(parentOf(spans, onlySpan(spans, 'km.memory_db.search'))).toBe(search);
  });

  it('records a refused request on the span as an error', async () => {
    const memory = await plutoMemory();
    await expect(memory.ask('   ')).rejects.toMatchObject({ code: 'invalid_argument' });
    const ask = onlySpan(exporter.getFinishedSpans(), 'km.ask');
    expect(ask.status.code).toBe(SpanStatusCode.ERROR);
    expect(ask.attributes['error.type']).toBe('invalid_argument');
    expect(ask.events.some((e) => e.name === 'exception')).toBe(true);
  });
});
