import { beforeAll, describe, expect, it } from 'vitest';
import { CL100KTokenizer, type ITextGenerator, type TextGenerationOptions } from '@km/core';
import { expectProblem, importTexts, uploadForm, useTestService, waitForCompletion } from './helpers.js';

const MOON = 'The Moon orbits the Earth at an average distance of 384,400 km. It takes about 27 days to orbit once.';
const MARS = 'Mars is the fourth planet from the Sun. Its red colour comes from iron oxide on its surface.';

/** A text generator plugged into the service: records prompts and options, answers with a fixed text. */
class RecordingGenerator implements ITextGenerator {
  readonly maxTokenTotal = 4096;
  readonly modelName = 'recorder';
  readonly tokenizer = new CL100KTokenizer();
  readonly calls: Array<{ prompt: string; options: TextGenerationOptions }> = [];
  async *generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string> {
    this.calls.push({ prompt, options });
    yield 'The Moon is ';
    yield 'about 384,400 km away.';
  }
}

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('KM per-request arguments over HTTP', () => {
  const generator = new RecordingGenerator();
  // Closing may wait for kept-alive client sockets to time out.
  const service = useTestService({
    overrides: { logLevel: 'warn' },
    configure: (b) => b.withTextGenerator(generator),
    disposeTimeoutMs: 30_000,
  });
  beforeAll(() => importTexts(service().url, 'sky', { moon: MOON, mars: MARS }));

  it('answers 400 naming an unknown or ill-typed argument on /ask and /search', async () => {
    const unknown = await expectProblem(
      await post(service().url, '/ask', { index: 'sky', question: 'Moon?', args: { custom_rag_max_matches: 1 } }),
      400,
      /custom_rag_max_matches"/,
    );
    expect(unknown).toMatchObject({ status: 400 });
    await expectProblem(
      await post(service().url, '/search', { index: 'sky', query: 'Moon', args: { custom_rag_max_matches_count_int: 1.5 } }),
      400,
      /custom_rag_max_matches_count_int/,
    );
    await expectProblem(
      await post(service().url, '/ask', { index: 'sky', question: 'Moon?', stream: true, args: { custom_rag_prompt_str: 3 } }),
      400,
      /custom_rag_prompt_str/,
    );
  });

  it('limits the facts with custom_rag_max_matches_count_int and sends the custom prompt to the text generator', async () => {
    const before = generator.calls.length;
    const res = await post(service().url, '/ask', {
      index: 'sky',
      question: 'At what average distance does the Moon orbit the Earth?',
      args: {
        custom_rag_max_matches_count_int: 1,
        custom_rag_prompt_str: 'MY PROMPT {{$facts}} Q={{$input}}',
        custom_rag_max_tokens_int: 33,
      },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { text: string; relevantSources: Array<{ documentId: string; partitions: unknown[] }> };
    expect(answer.text).toBe('The Moon is about 384,400 km away.');
    expect(answer.relevantSources).toHaveLength(1);
    expect(answer.relevantSources[0]!.partitions).toHaveLength(1);
    const call = generator.calls[before]!;
    expect(call.prompt.startsWith('MY PROMPT ==== [File:moon.txt;')).toBe(true);
    expect(call.prompt).not.toContain('Mars');
    expect(call.options.maxTokens).toBe(33);

    const search = await post(service().url, '/search', {
      index: 'sky',
      query: 'planet Moon Sun',
      args: { custom_rag_max_matches_count_int: 1 },
    });
    expect(((await search.json()) as { results: unknown[] }).results).toHaveLength(1);
  });

  it('returns the custom empty answer when nothing matches', async () => {
    const res = await post(service().url, '/ask', {
      index: 'nothing-here',
      question: 'Anything?',
      args: { custom_rag_empty_answer_str: 'Nothing in memory, sorry.' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ noResult: true, text: 'Nothing in memory, sorry.' });
  });

  it('gives an uploaded file KM’s /download link as sourceUrl, and the link downloads it', async () => {
    const res = await post(service().url, '/search', { index: 'sky', query: 'Moon orbit distance' });
    const result = (await res.json()) as { results: Array<{ documentId: string; sourceUrl: string }> };
    const moon = result.results.find((r) => r.documentId === 'moon')!;
    expect(moon.sourceUrl).toBe('/download?index=sky&documentId=moon&filename=moon.txt');
    const file = await fetch(`${service().url}${moon.sourceUrl}`);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(MOON);
  });
});

describe('KM ingestion arguments on POST /upload', () => {
  const service = useTestService({ overrides: { logLevel: 'warn' }, disposeTimeoutMs: 30_000 });

  const upload = (documentId: string, args: unknown) =>
    fetch(`${service().url}/upload`, {
      method: 'POST',
      body: uploadForm({ index: 'ingest', documentId, args: JSON.stringify(args) }, [
        { name: 'notes.txt', content: `${MOON} ${MARS} ${MOON}`, type: 'text/plain' },
      ]),
    });

  it('refuses an unknown or ill-typed ingestion argument with 400 naming it, and stores nothing', async () => {
    await expectProblem(await upload('bad-name', { custom_partitioning_max_tokens: 20 }), 400, /custom_partitioning_max_tokens"/);
    await expectProblem(
      await upload('bad-type', { custom_partitioning_overlapping_tokens_int: 'many' }),
      400,
      /custom_partitioning_overlapping_tokens_int/,
    );
    for (const id of ['bad-name', 'bad-type']) {
      expect((await fetch(`${service().url}/upload-status?index=ingest&documentId=${id}`)).status).toBe(404);
    }
  });

  it('partitions with custom_partitioning_max_tokens_per_paragraph_int and custom_partitioning_chunk_header_str', async () => {
    expect(
      (await upload('custom', { custom_partitioning_max_tokens_per_paragraph_int: 20, custom_partitioning_chunk_header_str: 'HEADER-X' }))
        .status,
    ).toBe(202);
    await waitForCompletion(service().url, 'custom', 'ingest');
    const res = await post(service().url, '/search', { index: 'ingest', query: 'Moon Mars planet orbit', limit: 50 });
    const partitions = ((await res.json()) as { results: Array<{ partitions: Array<{ text: string }> }> }).results.flatMap(
      (r) => r.partitions,
    );
    expect(partitions.length).toBeGreaterThan(2);
    for (const p of partitions) expect(p.text.startsWith('HEADER-X')).toBe(true);
  });
});
