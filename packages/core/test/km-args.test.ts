import { describe, expect, it } from 'vitest';
import { isKmError, REQUEST_ARG_SPECS } from '../src/index.js';
import { checkIngestionArgs, checkRetrievalArgs, readIngestionArgs } from '../src/connector.js';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(isKmError(e, 'invalid_argument')).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected invalid_argument');
}

describe('request args (KM custom context)', () => {
  it('reads every KM retrieval argument with its type', () => {
    expect(
      checkRetrievalArgs({
        custom_rag_prompt_str: 'P {{$facts}}',
        custom_rag_fact_template_str: '{{$content}}',
        custom_rag_empty_answer_str: 'nothing',
        custom_rag_include_duplicate_facts_bool: true,
        custom_rag_max_tokens_int: 50,
        custom_rag_max_matches_count_int: '3',
        custom_rag_temperature_float: 0.5,
        custom_rag_nucleus_sampling_float: '0.9',
        custom_text_generation_model_name: 'gpt-x',
      }),
    ).toEqual({
      prompt: 'P {{$facts}}',
      factTemplate: '{{$content}}',
      emptyAnswer: 'nothing',
      includeDuplicateFacts: true,
      maxTokens: 50,
      maxMatchesCount: 3,
      temperature: 0.5,
      nucleusSampling: 0.9,
      textGenerationModelName: 'gpt-x',
    });
    expect(checkRetrievalArgs(undefined)).toEqual({});
    expect(checkRetrievalArgs({ custom_rag_prompt_str: null })).toEqual({});
  });

  it('refuses an unknown argument, naming it', () => {
    expect(refusal(() => checkRetrievalArgs({ custom_rag_max_matches_count: 3 }))).toContain('"custom_rag_max_matches_count"');
    expect(refusal(() => checkIngestionArgs({ chunkSize: 500 }))).toContain('"chunkSize"');
    expect(refusal(() => checkRetrievalArgs({ __proto__x: 1, toString: 1 }))).toMatch(/unknown argument "(__proto__x|toString)"/);
  });

  it('refuses ill-typed and out-of-range values, naming the argument', () => {
    expect(refusal(() => checkRetrievalArgs({ custom_rag_max_tokens_int: 1.5 }))).toMatch(/"custom_rag_max_tokens_int".*an integer/);
    expect(refusal(() => checkRetrievalArgs({ custom_rag_max_matches_count_int: 'ten' }))).toContain('"custom_rag_max_matches_count_int"');
    expect(refusal(() => checkRetrievalArgs({ custom_rag_max_matches_count_int: 0 }))).toContain('in [1, ∞]');
    expect(refusal(() => checkRetrievalArgs({ custom_rag_temperature_float: 3 }))).toContain('"custom_rag_temperature_float"');
    expect(refusal(() => checkRetrievalArgs({ custom_rag_prompt_str: 42 }))).toMatch(/"custom_rag_prompt_str".*a string/);
    expect(refusal(() => checkRetrievalArgs({ custom_rag_include_duplicate_facts_bool: 'yes' }))).toContain('true or false');
    expect(refusal(() => checkIngestionArgs({ custom_partitioning_overlapping_tokens_int: -1 }))).toContain(
      '"custom_partitioning_overlapping_tokens_int"',
    );
    expect(refusal(() => checkIngestionArgs({ custom_embedding_generation_batch_size_int: '' }))).toContain(
      '"custom_embedding_generation_batch_size_int"',
    );
    expect(refusal(() => checkRetrievalArgs(['x']))).toContain("'args' must be an object");
  });

  it('accepts the other phase’s arguments (KM shares one context) and km’s own partitioning names', () => {
    expect(checkRetrievalArgs({ custom_partitioning_max_tokens_per_paragraph_int: 100 })).toEqual({});
    expect(checkIngestionArgs({ custom_rag_max_tokens_int: 100, maxTokensPerChunk: '200', overlapTokens: 10, chunkHeader: 'H' })).toEqual({
      maxTokensPerChunk: 200,
      overlapTokens: 10,
      chunkHeader: 'H',
    });
    // KM's names win over km's own.
    expect(checkIngestionArgs({ maxTokensPerChunk: 200, custom_partitioning_max_tokens_per_paragraph_int: 300 })).toMatchObject({
      maxTokensPerChunk: 300,
    });
  });

  it('readIngestionArgs ignores names it does not know (pipelines saved earlier) but not bad values', () => {
    expect(readIngestionArgs({ chunkSize: 5, custom_embedding_generation_batch_size_int: 4 })).toEqual({ embeddingBatchSize: 4 });
    expect(refusal(() => readIngestionArgs({ custom_partitioning_chunk_header_str: 7 }))).toContain(
      '"custom_partitioning_chunk_header_str"',
    );
  });

  it('declares a type and a phase for every argument', () => {
    for (const [name, spec] of Object.entries(REQUEST_ARG_SPECS)) {
      const suffix = name.match(/_(int|float|str|bool)$/)?.[1];
      if (suffix) expect(spec.type).toBe({ int: 'int', float: 'float', str: 'string', bool: 'bool' }[suffix]);
      expect(['ingestion', 'retrieval']).toContain(spec.phase);
    }
  });
});
