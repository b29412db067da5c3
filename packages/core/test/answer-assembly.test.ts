import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  SimpleVectorDb,
  defaultPromptProvider,
  isKmError,
  silentLogger,
  type IPromptProvider,
  type ITextEmbeddingGenerator,
  type TextGenerationOptions,
} from '../src/index.js';
import { SearchClient, type RetrievalRequest } from '../src/connector.js';
import { ScriptedTextGenerator, collect } from './helpers.js';

const MOON = 'The Moon orbits the Earth at an average distance of 384,400 km. It takes about 27 days to orbit once.';
const MARS = 'Mars is the fourth planet from the Sun. Its red colour comes from iron oxide on its surface.';

/** A memory over its own DB and generator, plus a search client reading the same DB. */
async function setup(
  texts: Record<string, string>,
  options: { textGenerator?: ScriptedTextGenerator; embeddings?: ITextEmbeddingGenerator; promptProvider?: IPromptProvider } = {},
) {
  const db = new SimpleVectorDb();
  const embeddings = options.embeddings ?? new HashingEmbeddingGenerator();
  let builder = new KernelMemoryBuilder().withMemoryDb(db).withEmbeddingGenerator(embeddings).withLogger(silentLogger);
  if (options.textGenerator) builder = builder.withTextGenerator(options.textGenerator);
  if (options.promptProvider) builder = builder.withPromptProvider(options.promptProvider);
  const memory = builder.build();
  for (const [documentId, text] of Object.entries(texts)) await memory.importText(text, { documentId, index: 'kb' });
  const client = new SearchClient({
    memoryDb: db,
    embeddingGenerator: embeddings,
    textGenerator: options.textGenerator,
    logger: silentLogger,
    promptProvider: options.promptProvider,
  });
  const request = (args?: Record<string, unknown>, signal?: AbortSignal): RetrievalRequest => ({
    index: 'kb',
    filters: [],
    minRelevance: 0,
    args,
    signal,
  });
  return { memory, client, request, db };
}

/** A generator that records the options of each call. */
class RecordingGenerator extends ScriptedTextGenerator {
  readonly options: TextGenerationOptions[] = [];
  override async *generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string> {
    this.options.push(options);
    yield* super.generate(prompt, options);
  }
}

describe('ask and search honour KM per-request arguments', () => {
  it('uses the custom prompt, fact template, limits and sampling, and passes them to the generator', async () => {
    const generator = new RecordingGenerator(() => 'About 384,400 km.');
    const { client, request } = await setup({ moon: MOON, mars: MARS }, { textGenerator: generator });
    const answer = await client.ask(
      'At what average distance does the Moon orbit the Earth?',
      request({
        custom_rag_prompt_str: 'CUSTOM PROMPT\n{{$facts}}\nQ: {{$input}}\nElse say {{$notFound}}',
        custom_rag_fact_template_str: '* {{$content}} (from {{$source}}, id {{$memoryId}})',
        custom_rag_max_matches_count_int: 1,
        custom_rag_max_tokens_int: 42,
        custom_rag_temperature_float: 0.7,
        custom_rag_nucleus_sampling_float: 0.3,
        custom_rag_empty_answer_str: 'NOPE',
      }),
    );
    const prompt = generator.prompts[0]!;
    expect(prompt.startsWith('CUSTOM PROMPT\n* The Moon orbits')).toBe(true);
    expect(prompt).toContain('(from content.txt, id d=moon//p=');
    expect(prompt).toContain('(from content.txt, id d=moon//p=');
    expect(prompt).toMatch(/\)\nQ: At what average distance does the Moon orbit the Earth\?\nElse say NOPE$/);
    expect(prompt).not.toContain('Mars');
    expect(answer.relevantSources.map((s) => s.documentId)).toEqual(['moon']);
    expect(generator.options[0]).toMatchObject({ maxTokens: 42, temperature: 0.7, nucleusSampling: 0.3 });
    expect(generator.options[0]!.modelName).toBeUndefined();
  });

  it('returns the custom empty answer when nothing matches, and when the model says it', async () => {
    const generator = new ScriptedTextGenerator(() => 'nope.');
    const { client, request } = await setup({ moon: MOON }, { textGenerator: generator });
    const none = await client.ask('Anything?', { ...request({ custom_rag_empty_answer_str: 'NOPE' }), index: 'empty' });
    expect(none).toMatchObject({ noResult: true, text: 'NOPE' });
    const said = await client.ask('How far is the Moon?', request({ custom_rag_empty_answer_str: 'NOPE' }));
    expect(said.noResult).toBe(true);
  });

  it('limits search results with custom_rag_max_matches_count_int when no limit is given', async () => {
    const { client, request } = await setup({ moon: MOON, mars: MARS });
    expect((await client.search('planet Moon Sun', request())).results).toHaveLength(2);
    expect((await client.search('planet Moon Sun', request({ custom_rag_max_matches_count_int: 1 }))).results).toHaveLength(1);
  });

  it('refuses an unknown or ill-typed argument before searching', async () => {
    const { client, request, db } = await setup({ moon: MOON });
    let searched = 0;
    const original = db.getSimilarList.bind(db);
    db.getSimilarList = (...a: Parameters<typeof db.getSimilarList>) => {
      searched++;
      return original(...a);
    };
    await expect(client.ask('Moon?', request({ custom_rag_max_tokens: 5 }))).rejects.toSatisfy(
      (e) => isKmError(e, 'invalid_argument') && /custom_rag_max_tokens"/.test((e as Error).message),
    );
    await expect(client.search('Moon?', request({ custom_rag_max_matches_count_int: 'x' }))).rejects.toSatisfy((e) =>
      isKmError(e, 'invalid_argument'),
    );
    await expect(collect(client.askStreaming('Moon?', request({ custom_rag_temperature_float: [] })))).rejects.toSatisfy((e) =>
      isKmError(e, 'invalid_argument'),
    );
    expect(searched).toBe(0);
  });

  it('passes custom_text_generation_model_name to a generator that can switch models, and refuses it otherwise', async () => {
    const fixed = new RecordingGenerator(() => 'ok');
    const { client, request } = await setup({ moon: MOON }, { textGenerator: fixed });
    await expect(client.ask('Moon?', request({ custom_text_generation_model_name: 'other-model' }))).rejects.toSatisfy(
      (e) => isKmError(e, 'invalid_argument') && /cannot switch to model "other-model"/.test((e as Error).message),
    );
    // Its own model is fine.
    await client.ask('Moon?', request({ custom_text_generation_model_name: 'scripted' }));

    const switching = Object.assign(new RecordingGenerator(() => 'ok'), { supportsModelOverride: true });
    const s = await setup({ moon: MOON }, { textGenerator: switching });
    const answer = await s.client.ask('Moon?', s.request({ custom_text_generation_model_name: 'other-model' }));
    expect(switching.options[0]!.modelName).toBe('other-model');
    expect(answer.tokenUsage[0]!.modelName).toBe('other-model');

    const extractive = await setup({ moon: MOON });
    await expect(extractive.client.ask('Moon?', extractive.request({ custom_text_generation_model_name: 'x' }))).rejects.toSatisfy((e) =>
      isKmError(e, 'invalid_argument'),
    );
  });
});

describe('ingestion honours KM per-request arguments', () => {
  class CountingEmbeddings extends HashingEmbeddingGenerator {
    readonly batches: number[] = [];
    override async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
      this.batches.push(texts.length);
      return super.generateEmbeddings(texts, signal);
    }
  }
  const LONG = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i * 3} in some detail.`).join(' ');

  it('partitions with KM’s max tokens, overlap and chunk header, and embeds in KM’s batch size', async () => {
    const embeddings = new CountingEmbeddings();
    const db = new SimpleVectorDb();
    const memory = new KernelMemoryBuilder().withMemoryDb(db).withEmbeddingGenerator(embeddings).withLogger(silentLogger).build();
    await memory.importText(LONG, { documentId: 'default-args' });
    const defaults = await collect(db.getList('default', { limit: 0 }));
    expect(defaults).toHaveLength(1);

    embeddings.batches.length = 0;
    await memory.importText(LONG, {
      documentId: 'km-args',
      index: 'other',
      args: {
        custom_partitioning_max_tokens_per_paragraph_int: 60,
        custom_partitioning_overlapping_tokens_int: 0,
        custom_partitioning_chunk_header_str: 'HEADER LINE',
        custom_embedding_generation_batch_size_int: 2,
      },
    });
    const records = await collect(db.getList('other', { limit: 0 }));
    expect(records.length).toBeGreaterThan(4);
    for (const r of records) expect(String(r.payload.text).startsWith('HEADER LINE\n')).toBe(true);
    expect(Math.max(...embeddings.batches)).toBe(2);

    // km's own names keep working.
    await memory.importText(LONG, { documentId: 'km-names', index: 'third', args: { maxTokensPerChunk: 60, chunkHeader: 'OWN' } });
    const own = await collect(db.getList('third', { limit: 0 }));
    expect(own.length).toBeGreaterThan(4);
    expect(own.every((r) => String(r.payload.text).startsWith('OWN\n'))).toBe(true);
  });
});

describe('prompt provider', () => {
  it('replaces the answer prompt of ask and the prompt of the summarize step', async () => {
    const provider: IPromptProvider = {
      readPrompt: (name) =>
        name === 'answer-with-facts'
          ? 'MY ANSWER PROMPT {{$facts}} / {{$input}}'
          : name === 'summarize'
            ? 'MY SUMMARY PROMPT: {{$input}}'
            : defaultPromptProvider.readPrompt(name),
    };
    const generator = new ScriptedTextGenerator(() => 'A summary.');
    const { memory } = await setup({ moon: MOON }, { textGenerator: generator, promptProvider: provider });
    await memory.ask('How far is the Moon?', { index: 'kb' });
    expect(generator.prompts.at(-1)!.startsWith('MY ANSWER PROMPT ==== [File:content.txt;Relevance:')).toBe(true);
    await memory.importText(MARS, {
      documentId: 'mars',
      index: 'kb',
      steps: ['extract', 'summarize', 'partition', 'gen_embeddings', 'save_records'],
    });
    expect(generator.prompts.at(-1)).toBe(`MY SUMMARY PROMPT: ${MARS}`);
  });

  it('keeps the default prompts without a provider', async () => {
    const generator = new ScriptedTextGenerator(() => 'ok');
    const { memory } = await setup({ moon: MOON }, { textGenerator: generator });
    await memory.ask('How far is the Moon?', { index: 'kb' });
    expect(generator.prompts[0]).toMatch(/^Facts:\n==== \[File:content.txt;Relevance:[\d.]+%\]:\nThe Moon orbits/);
    expect(generator.prompts[0]).toContain('Given only the facts above, provide a comprehensive answer.');
  });
});

describe('answer assembly', () => {
  it('puts identical partitions from several documents into the prompt once, citing every document', async () => {
    const generator = new ScriptedTextGenerator(() => 'About 384,400 km.');
    const { memory } = await setup({ a: MOON, b: MOON, c: MOON.toUpperCase(), mars: MARS }, { textGenerator: generator });
    const answer = await memory.ask('How far is the Moon?', { index: 'kb' });
    expect(generator.prompts[0]!.split('average distance').length - 1).toBe(1);
    expect(generator.prompts[0]!.split('AVERAGE DISTANCE').length - 1).toBe(0);
    expect(answer.relevantSources.map((s) => s.documentId).sort()).toEqual(['a', 'b', 'c', 'mars']);
  });

  it('quotes identical partitions once in the extractive answer, citing every document', async () => {
    const { memory } = await setup({ a: MOON, b: MOON, mars: MARS });
    const answer = await memory.ask('How far away does the Moon orbit the Earth?', { index: 'kb' });
    expect(answer.text.split('384,400 km').length - 1).toBe(1);
    expect(answer.text).toMatch(/384,400 km\." \[1\]\[2\]/);
    expect(answer.relevantSources.map((s) => s.documentId)).toEqual(expect.arrayContaining(['a', 'b']));
  });

  it('reports each source once over a streamed answer (LLM and extractive)', async () => {
    for (const textGenerator of [new ScriptedTextGenerator(() => 'The Moon is about 384,400 km away from the Earth.'), undefined]) {
      const { memory } = await setup({ moon: MOON, mars: MARS }, textGenerator ? { textGenerator } : {});
      const chunks = await collect(memory.askStreaming('How far is the Moon?', { index: 'kb' }));
      const listed = chunks.flatMap((c) => c.relevantSources.map((s) => s.link));
      expect(listed.length).toBeGreaterThan(0);
      expect(new Set(listed).size).toBe(listed.length);
      expect(chunks.at(-1)!.streamState).toBe('last');
      expect(chunks.at(-1)!.relevantSources).toEqual([]);
      // ask() still returns them.
      expect((await memory.ask('How far is the Moon?', { index: 'kb' })).relevantSources.length).toBe(new Set(listed).size);
    }
  });

  it('gives an uploaded file KM’s download link as sourceUrl, URL-encoded', async () => {
    const db = new SimpleVectorDb();
    const memory = new KernelMemoryBuilder()
      .withMemoryDb(db)
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withLogger(silentLogger)
      .build();
    await memory.importDocument(
      { name: 'notes & plans.txt', data: MOON, mimeType: 'text/plain' },
      { documentId: 'doc.1', index: 'my index' },
    );
    const result = await memory.search('Moon distance', { index: 'my index' });
    expect(result.results[0]!.sourceUrl).toBe('/download?index=my-index&documentId=doc.1&filename=notes%20%26%20plans.txt');
  });

  it('adds no abort listener that outlives a search or an ask, however many the generators add', async () => {
    /** Like an embedding pool: one abort listener per text while it is being embedded. */
    class ListeningEmbeddings extends HashingEmbeddingGenerator {
      override async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
        const parts = await Promise.all(
          texts.map(async (t) => {
            const onAbort = () => {};
            signal?.addEventListener('abort', onAbort, { once: true });
            await new Promise((r) => setImmediate(r));
            signal?.removeEventListener('abort', onAbort);
            return super.generateEmbeddings([t]);
          }),
        );
        return parts.flat();
      }
    }
    const many = Array.from({ length: 30 }, (_, i) => `Fact ${i}: the Moon has property number ${i * 7} in this long list.`).join(' ');
    const { client, request } = await setup({ moon: many }, { embeddings: new ListeningEmbeddings() });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      for (let i = 0; i < 15; i++) {
        await client.ask('What property does the Moon have?', request(undefined, controller.signal));
        await client.search('Moon property', request(undefined, controller.signal));
      }
      await new Promise((r) => setImmediate(r));
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('still aborts a search through its own signal', async () => {
    const { client, request } = await setup({ moon: MOON });
    const controller = new AbortController();
    controller.abort();
    await expect(client.search('Moon', request(undefined, controller.signal))).rejects.toThrow();
  });
});
