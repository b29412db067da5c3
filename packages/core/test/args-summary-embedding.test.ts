import { describe, expect, it } from 'vitest';
import {
  CL100KTokenizer,
  HashingEmbeddingGenerator,
  PayloadFields,
  ReservedTags,
  SimpleVectorDb,
  defaultPromptProvider,
  isKmError,
  type IPromptProvider,
} from '../src/index.js';
import { checkIngestionArgs, checkRetrievalArgs } from '../src/connector.js';
import { ScriptedTextGenerator, allRecords, inMemoryBuilder } from './helpers.js';

const STEPS = ['extract', 'summarize', 'gen_embeddings', 'save_records'];
const tokenizer = new CL100KTokenizer();

/** Numbered sentences: a long text whose pieces can be told apart. */
const LONG = Array.from({ length: 300 }, (_, i) => `Sentence number ${i} tells of the river and the mill.`).join(' ');

/** "Summarizes" by keeping the first `share` of the words after the prompt's `INPUT:` marker. */
function shortening(share: number) {
  return (prompt: string) => {
    const words = prompt
      .slice(prompt.indexOf('INPUT:') + 6)
      .trim()
      .split(/\s+/);
    return words.slice(0, Math.max(1, Math.floor(words.length * share))).join(' ');
  };
}

function setup(generator: ScriptedTextGenerator, promptProvider?: IPromptProvider) {
  const db = new SimpleVectorDb();
  let builder = inMemoryBuilder({ memoryDb: db }).withTextGenerator(generator);
  if (promptProvider) builder = builder.withPromptProvider(promptProvider);
  return { memory: builder.build(), db };
}

async function summaryOf(db: SimpleVectorDb): Promise<string> {
  const summaries = (await allRecords(db)).filter((r) => r.tags[ReservedTags.synthetic]?.includes('summary'));
  expect(summaries).toHaveLength(1);
  return String(summaries[0]!.payload[PayloadFields.text]);
}

describe("KM's summary and embedding model arguments", () => {
  it('are accepted at import and at retrieval (KM shares one context), with their types', () => {
    expect(
      checkIngestionArgs({
        custom_summary_prompt_str: 'Sum up: {{$input}}',
        custom_summary_target_token_size_int: '100',
        custom_summary_overlapping_tokens_int: 0,
        custom_embedding_generation_model_name: 'text-embedding-3-small',
      }),
    ).toEqual({
      summaryPrompt: 'Sum up: {{$input}}',
      summaryTargetTokenSize: 100,
      summaryOverlappingTokens: 0,
      embeddingModelName: 'text-embedding-3-small',
    });
    expect(checkRetrievalArgs({ custom_summary_prompt_str: 'x', custom_embedding_generation_model_name: 'm' })).toEqual({
      embeddingModelName: 'm',
    });
    expect(() => checkIngestionArgs({ custom_summary_target_token_size_int: 10 })).toThrow(
      /"custom_summary_target_token_size_int".*in \[15, ∞\]/,
    );
    expect(() => checkIngestionArgs({ custom_summary_overlapping_tokens_int: -1 })).toThrow(/"custom_summary_overlapping_tokens_int"/);
    expect(() => checkIngestionArgs({ custom_summary_prompt_str: ' ' })).toThrow(/"custom_summary_prompt_str".*non-empty/);
  });

  it('custom_summary_prompt_str wins over the prompt provider’s summarize prompt', async () => {
    const generator = new ScriptedTextGenerator(() => 'A summary.');
    const provider: IPromptProvider = {
      readPrompt: (name) => (name === 'summarize' ? 'PROVIDER: {{$input}}' : defaultPromptProvider.readPrompt(name)),
    };
    const { memory } = setup(generator, provider);
    await memory.importText('The mill stands by the river.', {
      documentId: 'own',
      steps: STEPS,
      args: { custom_summary_prompt_str: 'REQUEST: {{$input}}' },
    });
    expect(generator.prompts).toEqual(['REQUEST: The mill stands by the river.']);
    await memory.importText('The mill stands by the river.', { documentId: 'provider', steps: STEPS });
    expect(generator.prompts.at(-1)).toBe('PROVIDER: The mill stands by the river.');
  });

  it('custom_summary_target_token_size_int summarizes again until the summary is that short', async () => {
    const plain = new ScriptedTextGenerator(shortening(0.5), 2000);
    const a = setup(plain);
    await a.memory.importText(LONG, { documentId: 'd', steps: STEPS, args: { custom_summary_prompt_str: 'INPUT: {{$input}}' } });
    const untargeted = await summaryOf(a.db);
    expect(tokenizer.countTokens(untargeted)).toBeGreaterThan(100);

    const targeted = new ScriptedTextGenerator(shortening(0.5), 2000);
    const b = setup(targeted);
    await b.memory.importText(LONG, {
      documentId: 'd',
      steps: STEPS,
      args: { custom_summary_prompt_str: 'INPUT: {{$input}}', custom_summary_target_token_size_int: 100 },
    });
    const summary = await summaryOf(b.db);
    expect(tokenizer.countTokens(summary)).toBeLessThanOrEqual(100);
    expect(targeted.prompts.length).toBeGreaterThan(plain.prompts.length);
    expect(summary.startsWith('Sentence number 0 tells')).toBe(true);
  });

  it('a target over half the generator’s maxTokenTotal fails the document, naming the argument and the limit', async () => {
    const { memory } = setup(new ScriptedTextGenerator(() => 'S.', 2000));
    const error = await memory
      .importText(LONG, { documentId: 'big', steps: STEPS, args: { custom_summary_target_token_size_int: 1001 } })
      .catch((e: unknown) => e);
    expect(isKmError(error, 'pipeline_failed')).toBe(true);
    expect((error as Error).message).toMatch(/"custom_summary_target_token_size_int" \(1001\) is too large: at most 1000/);
  });

  it('custom_summary_overlapping_tokens_int makes the pieces of a long text overlap, then summarizes them as a whole', async () => {
    const pieces = async (overlap: number | undefined) => {
      const generator = new ScriptedTextGenerator(shortening(0.3), 2000);
      const { memory } = setup(generator);
      const args: Record<string, unknown> = { custom_summary_prompt_str: 'INPUT: {{$input}}' };
      if (overlap !== undefined) args.custom_summary_overlapping_tokens_int = overlap;
      await memory.importText(LONG, { documentId: 'o', steps: STEPS, args });
      return generator.prompts.map((p) => p.slice('INPUT: '.length));
    };
    const firstSentenceOf = (text: string) => text.match(/Sentence number (\d+)/)![1];
    const lastSentenceOf = (text: string) => [...text.matchAll(/Sentence number (\d+)/g)].at(-1)![1];
    const without = await pieces(undefined);
    const withOverlap = await pieces(100);
    // Round one: several pieces; the second starts after the first ends, or inside it with overlap.
    expect(Number(firstSentenceOf(without[1]!))).toBe(Number(lastSentenceOf(without[0]!)) + 1);
    expect(Number(firstSentenceOf(withOverlap[1]!))).toBeLessThanOrEqual(Number(lastSentenceOf(withOverlap[0]!)));
    // The last call summarizes the joined summaries as a whole.
    expect(withOverlap.at(-1)!.startsWith('Sentence number 0 ')).toBe(true);
  });

  it('custom_embedding_generation_model_name is refused unless it names the embedding generator’s model', async () => {
    const embeddings = new HashingEmbeddingGenerator();
    const db = new SimpleVectorDb();
    const memory = inMemoryBuilder({ embeddingGenerator: embeddings, memoryDb: db }).build();
    const error = await memory
      .importText('Otters sleep.', { documentId: 'other', args: { custom_embedding_generation_model_name: 'text-embedding-3-small' } })
      .catch((e: unknown) => e);
    // Refused at import, before anything is stored.
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain(
      `argument "custom_embedding_generation_model_name": the embedding generator (${embeddings.modelName}) cannot switch to model "text-embedding-3-small"`,
    );
    expect(await memory.getDocumentStatus('other')).toBeNull();
    expect(await allRecords(db)).toEqual([]);

    await memory.importText('Otters sleep holding hands.', {
      documentId: 'same',
      args: { custom_embedding_generation_model_name: embeddings.modelName },
    });
    expect(await memory.isDocumentReady('same')).toBe(true);

    const refused = await memory
      .search('otters', { args: { custom_embedding_generation_model_name: 'text-embedding-3-small' } })
      .catch((e: unknown) => e);
    expect(isKmError(refused, 'invalid_argument')).toBe(true);
    expect((refused as Error).message).toMatch(/"custom_embedding_generation_model_name".*cannot switch/);
    const asked = await memory
      .ask('Do otters sleep?', { args: { custom_embedding_generation_model_name: 'other-model' } })
      .catch((e: unknown) => e);
    expect(isKmError(asked, 'invalid_argument')).toBe(true);
    const found = await memory.search('otters sleep', { args: { custom_embedding_generation_model_name: embeddings.modelName } });
    expect(found.results.map((c) => c.documentId)).toEqual(['same']);
  });
});
