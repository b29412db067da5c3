import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { InvalidInputError } from '../errors/km-error.js';
import { unstorableTextReason } from './unstorable-text.js';

/** Value type of a request argument; KM encodes it in the name's suffix (`_int`, `_float`, `_str`, `_bool`). */
export type RequestArgType = 'int' | 'float' | 'string' | 'bool';

/** Where an argument is read: at ingestion (import/upload) or at retrieval (search/ask). */
export type RequestArgPhase = 'ingestion' | 'retrieval';

/** Declaration of one supported request argument. */
export interface RequestArgSpec {
  type: RequestArgType;
  phase: RequestArgPhase;
  /** Smallest accepted value (numbers only). */
  min?: number;
  /** Largest accepted value (numbers only). */
  max?: number;
  /** Strings only: refuse the empty string. @default false */
  nonEmpty?: boolean;
  /**
   * Strings only: the value ends up in stored records (e.g. the chunk header), so NUL and lone
   * surrogates, which some memory DBs cannot store, are refused. @default false
   */
  storedText?: boolean;
  /** What it overrides, for error messages and docs. */
  description: string;
}

/**
 * Kernel Memory's per-request argument names (KM's `Constants.CustomContext`), plus km's own
 * partitioning names kept from earlier releases.
 */
export const RequestArgs = {
  ragPrompt: 'custom_rag_prompt_str',
  ragFactTemplate: 'custom_rag_fact_template_str',
  ragEmptyAnswer: 'custom_rag_empty_answer_str',
  ragIncludeDuplicateFacts: 'custom_rag_include_duplicate_facts_bool',
  ragMaxTokens: 'custom_rag_max_tokens_int',
  ragMaxMatchesCount: 'custom_rag_max_matches_count_int',
  ragTemperature: 'custom_rag_temperature_float',
  ragNucleusSampling: 'custom_rag_nucleus_sampling_float',
  textGenerationModelName: 'custom_text_generation_model_name',
  partitioningMaxTokensPerParagraph: 'custom_partitioning_max_tokens_per_paragraph_int',
  partitioningOverlappingTokens: 'custom_partitioning_overlapping_tokens_int',
  partitioningChunkHeader: 'custom_partitioning_chunk_header_str',
  embeddingGenerationBatchSize: 'custom_embedding_generation_batch_size_int',
  embeddingGenerationModelName: 'custom_embedding_generation_model_name',
  summaryPrompt: 'custom_summary_prompt_str',
  summaryTargetTokenSize: 'custom_summary_target_token_size_int',
  summaryOverlappingTokens: 'custom_summary_overlapping_tokens_int',
  /** km's own name of `custom_partitioning_max_tokens_per_paragraph_int`. */
  maxTokensPerChunk: 'maxTokensPerChunk',
  /** km's own name of `custom_partitioning_overlapping_tokens_int`. */
  overlapTokens: 'overlapTokens',
  /** km's own name of `custom_partitioning_chunk_header_str`. */
  chunkHeader: 'chunkHeader',
} as const;

/** Every supported argument, by name. */
export const REQUEST_ARG_SPECS: Readonly<Record<string, RequestArgSpec>> = {
  [RequestArgs.ragPrompt]: { type: 'string', phase: 'retrieval', nonEmpty: true, description: 'the answer prompt' },
  [RequestArgs.ragFactTemplate]: {
    type: 'string',
    phase: 'retrieval',
    nonEmpty: true,
    description: 'how each fact is written into the prompt',
  },
  [RequestArgs.ragEmptyAnswer]: { type: 'string', phase: 'retrieval', description: 'the answer given when nothing relevant is found' },
  [RequestArgs.ragIncludeDuplicateFacts]: {
    type: 'bool',
    phase: 'retrieval',
    description: 'whether identical partitions go into the prompt more than once',
  },
  [RequestArgs.ragMaxTokens]: { type: 'int', phase: 'retrieval', min: 1, description: 'the most tokens of the generated answer' },
  [RequestArgs.ragMaxMatchesCount]: {
    type: 'int',
    phase: 'retrieval',
    min: 1,
    description: 'the most partitions used by ask (facts) and search (results)',
  },
  [RequestArgs.ragTemperature]: { type: 'float', phase: 'retrieval', min: 0, max: 2, description: 'the temperature of the answer' },
  [RequestArgs.ragNucleusSampling]: {
    type: 'float',
    phase: 'retrieval',
    min: 0,
    max: 1,
    description: 'the nucleus sampling (top p) of the answer',
  },
  [RequestArgs.textGenerationModelName]: {
    type: 'string',
    phase: 'retrieval',
    nonEmpty: true,
    description: 'the model of the text generator',
  },
  [RequestArgs.partitioningMaxTokensPerParagraph]: {
    type: 'int',
    phase: 'ingestion',
    min: 1,
    description: 'the most tokens per partition',
  },
  [RequestArgs.partitioningOverlappingTokens]: {
    type: 'int',
    phase: 'ingestion',
    min: 0,
    description: 'the tokens shared by consecutive partitions',
  },
  [RequestArgs.partitioningChunkHeader]: {
    type: 'string',
    phase: 'ingestion',
    storedText: true,
    description: 'the text put at the top of every partition',
  },
  [RequestArgs.embeddingGenerationBatchSize]: { type: 'int', phase: 'ingestion', min: 1, description: 'the texts sent per embedding call' },
  [RequestArgs.embeddingGenerationModelName]: {
    type: 'string',
    phase: 'ingestion',
    nonEmpty: true,
    description: 'the model of the embedding generator (also checked by search and ask, whose query it embeds)',
  },
  [RequestArgs.summaryPrompt]: { type: 'string', phase: 'ingestion', nonEmpty: true, description: 'the prompt of the summarize step' },
  [RequestArgs.summaryTargetTokenSize]: {
    type: 'int',
    phase: 'ingestion',
    min: 15,
    description: "the most tokens of a summary (at most half the text generator's maxTokenTotal)",
  },
  [RequestArgs.summaryOverlappingTokens]: {
    type: 'int',
    phase: 'ingestion',
    min: 0,
    description: 'the tokens shared by consecutive paragraphs summarized',
  },
  [RequestArgs.maxTokensPerChunk]: { type: 'int', phase: 'ingestion', min: 1, description: 'the most tokens per partition' },
  [RequestArgs.overlapTokens]: { type: 'int', phase: 'ingestion', min: 0, description: 'the tokens shared by consecutive partitions' },
  [RequestArgs.chunkHeader]: {
    type: 'string',
    phase: 'ingestion',
    storedText: true,
    description: 'the text put at the top of every partition',
  },
};

/** Arguments of search and ask, typed; absent ones are undefined. */
export interface RetrievalArgs {
  prompt?: string;
  factTemplate?: string;
  emptyAnswer?: string;
  includeDuplicateFacts?: boolean;
  maxTokens?: number;
  maxMatchesCount?: number;
  temperature?: number;
  nucleusSampling?: number;
  textGenerationModelName?: string;
  /** Must name the embedding generator's model; see {@link checkEmbeddingModelName}. */
  embeddingModelName?: string;
}

/** Arguments of the ingestion handlers, typed; KM's names win over km's own. */
export interface IngestionArgs {
  maxTokensPerChunk?: number;
  overlapTokens?: number;
  chunkHeader?: string;
  embeddingBatchSize?: number;
  /** Must name the embedding generator's model; see {@link checkEmbeddingModelName}. */
  embeddingModelName?: string;
  /** Replaces the `summarize` prompt of the prompt provider. */
  summaryPrompt?: string;
  /** The summary is summarized again until it has at most this many tokens. */
  summaryTargetTokenSize?: number;
  /** Tokens shared by consecutive paragraphs of a long text summarized piece by piece. */
  summaryOverlappingTokens?: number;
}

/**
 * Checks the arguments of a search or ask: every name must be a supported argument and
 * every value of its type and range. Ingestion arguments are accepted (KM shares one context
 * between calls) and ignored. Throws `InvalidInputError('invalid_argument')` naming the argument.
 */
export function checkRetrievalArgs(args: unknown): RetrievalArgs {
  const checked = checkArgs(args);
  const A = RequestArgs;
  return compact({
    prompt: checked[A.ragPrompt] as string | undefined,
    factTemplate: checked[A.ragFactTemplate] as string | undefined,
    emptyAnswer: checked[A.ragEmptyAnswer] as string | undefined,
    includeDuplicateFacts: checked[A.ragIncludeDuplicateFacts] as boolean | undefined,
    maxTokens: checked[A.ragMaxTokens] as number | undefined,
    maxMatchesCount: checked[A.ragMaxMatchesCount] as number | undefined,
    temperature: checked[A.ragTemperature] as number | undefined,
    nucleusSampling: checked[A.ragNucleusSampling] as number | undefined,
    textGenerationModelName: checked[A.textGenerationModelName] as string | undefined,
    embeddingModelName: checked[A.embeddingGenerationModelName] as string | undefined,
  });
}

/**
 * Checks the arguments of an import, like {@link checkRetrievalArgs}; retrieval arguments
 * are accepted and ignored. Call it before anything is written.
 */
export function checkIngestionArgs(args: unknown): IngestionArgs {
  return readIngestionArgs(checkArgs(args));
}

/**
 * The ingestion arguments of a pipeline's stored `args`, typed. Names it does not know are
 * ignored (pipelines saved by earlier releases may hold some); a known one of the wrong type
 * throws `invalid_argument`.
 */
export function readIngestionArgs(args: Record<string, unknown> | undefined): IngestionArgs {
  const known: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args ?? {})) {
    const spec = REQUEST_ARG_SPECS[name];
    if (spec && value !== undefined && value !== null) known[name] = checkValue(name, spec, value);
  }
  const A = RequestArgs;
  return compact({
    maxTokensPerChunk: (known[A.partitioningMaxTokensPerParagraph] ?? known[A.maxTokensPerChunk]) as number | undefined,
    overlapTokens: (known[A.partitioningOverlappingTokens] ?? known[A.overlapTokens]) as number | undefined,
    chunkHeader: (known[A.partitioningChunkHeader] ?? known[A.chunkHeader]) as string | undefined,
    embeddingBatchSize: known[A.embeddingGenerationBatchSize] as number | undefined,
    embeddingModelName: known[A.embeddingGenerationModelName] as string | undefined,
    summaryPrompt: known[A.summaryPrompt] as string | undefined,
    summaryTargetTokenSize: known[A.summaryTargetTokenSize] as number | undefined,
    summaryOverlappingTokens: known[A.summaryOverlappingTokens] as number | undefined,
  });
}

/**
 * Refuses `custom_embedding_generation_model_name` unless it names the embedding generator's
 * model: km's generators cannot switch models per request, and vectors of another model would
 * not be comparable with the ones stored. Waits for a lazily loaded generator to know its model.
 * Throws `InvalidInputError('invalid_argument')` naming the argument.
 */
export async function checkEmbeddingModelName(name: string | undefined, generator: ITextEmbeddingGenerator | undefined): Promise<void> {
  if (name === undefined) return;
  const arg = RequestArgs.embeddingGenerationModelName;
  if (!generator) throw new InvalidInputError('invalid_argument', `argument "${arg}" needs an embedding generator; none is configured`);
  await generator.ready?.();
  if (generator.modelName !== name) {
    throw new InvalidInputError(
      'invalid_argument',
      `argument "${arg}": the embedding generator${generator.modelName ? ` (${generator.modelName})` : ''} cannot switch to model "${name}"`,
    );
  }
}

function checkArgs(args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new InvalidInputError('invalid_argument', "'args' must be an object of argument names and values");
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args as Record<string, unknown>)) {
    const spec = Object.hasOwn(REQUEST_ARG_SPECS, name) ? REQUEST_ARG_SPECS[name] : undefined;
    if (!spec) {
      throw new InvalidInputError(
        'invalid_argument',
        `unknown argument "${name}"; supported: ${Object.keys(REQUEST_ARG_SPECS).join(', ')}`,
      );
    }
    // KM treats a null argument as absent.
    if (value !== undefined && value !== null) out[name] = checkValue(name, spec, value);
  }
  return out;
}

/** The value as its declared type: numbers may come as numeric strings, booleans as "true"/"false". */
function checkValue(name: string, spec: RequestArgSpec, value: unknown): string | number | boolean {
  const fail = (expected: string): never => {
    throw new InvalidInputError(
      'invalid_argument',
      `argument "${name}" (${spec.description}) must be ${expected}, got ${JSON.stringify(value)}`,
    );
  };
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string') return fail('a string');
      if (spec.nonEmpty && value.trim() === '') return fail('a non-empty string');
      if (spec.storedText) {
        const unstorable = unstorableTextReason(value);
        if (unstorable)
          throw new InvalidInputError(
            'invalid_argument',
            `argument "${name}" (${spec.description}) ${unstorable}, which memory DBs cannot store`,
          );
      }
      return value;
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return fail('true or false');
    case 'int':
    case 'float': {
      const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      const kind = spec.type === 'int' ? 'an integer' : 'a number';
      if (!Number.isFinite(number) || (spec.type === 'int' && !Number.isInteger(number))) return fail(kind);
      if ((spec.min !== undefined && number < spec.min) || (spec.max !== undefined && number > spec.max)) {
        return fail(`${kind} in [${spec.min ?? '-∞'}, ${spec.max ?? '∞'}]`);
      }
      return number;
    }
  }
}

function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
