import type { HybridFusion, IMemoryDb, SearchMode, SimilarityOptions } from '../contracts/memory-db.js';
import { embedQuery, type QueryEmbeddingCacheOptions } from '../ai/query-embedding-cache.js';
import { CL100KTokenizer } from '../ai/gpt-tokenizer.js';
import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { ITextGenerator, TextGenerationOptions } from '../contracts/text-generator.js';
import type { ITextReranker } from '../contracts/text-reranker.js';
import { InvalidInputError } from '../errors/km-error.js';
import { NOT_FOUND_ANSWER } from '../models/constants.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import { checkEmbeddingModelName, checkRetrievalArgs, RequestArgs, type RetrievalArgs } from '../validation/km-args.js';
import type { MemoryAnswer, SearchResult, TokenUsage } from '../models/search-models.js';
import type { Logger } from '../util/logger.js';
import { CitationCollector, sourceUrlOf } from './citations.js';
import { answerEvidence } from './answer-evidence.js';
import { answerabilityModelFor, answerabilityScore, LEXICAL_ANSWERABILITY } from './answerability.js';
import { contentTerms, questionTerms } from './answer-terms.js';
import { selectSentences } from './extractive-answer.js';
import { formatExtractiveAnswer } from './extractive-answer-text.js';
import { mergeNearDuplicates } from './passage-merge.js';
import { chooseReranker, rerankMatches } from './rerank-step.js';
import { checkFusion, checkMode, checkRerank } from './retrieval-checks.js';
import { renderFact } from './fact-template.js';
import { operationSignal } from '../util/operation-signal.js';
import { defaultPromptProvider, PromptNames, readPrompt, type IPromptProvider } from './prompt-provider.js';
import { FACT_TEMPLATE, renderPrompt } from './prompts.js';
import { DEFAULT_SEARCH_OPTIONS, type SearchClientOptions } from './search-options.js';
import { embeddingAttributes, generationAttributes, tokenAttributes, usageTokenAttributes } from '../tracing/model-spans.js';
import { KmAttributes } from '../tracing/span-attributes.js';
import { traceIterable, withSpan } from '../tracing/with-span.js';

/** Settings of a {@link SearchClient}: the {@link SearchClientOptions} and its query-embedding cache. */
export interface SearchClientSettings extends Partial<SearchClientOptions> {
  /**
   * Cache of query embeddings: sizes for the embedding generator's shared cache (see
   * `queryEmbeddingCacheOf`), or `false` to embed every query with one
   * `generateEmbeddings([query], signal, { purpose: 'query' })` call. @default on, default sizes
   */
  queryCache?: QueryEmbeddingCacheOptions | false | undefined;
}

/** What the search client reads from. */
export interface SearchClientDependencies {
  memoryDb: IMemoryDb;
  embeddingGenerator: ITextEmbeddingGenerator | undefined;
  textGenerator: ITextGenerator | undefined;
  logger: Logger;
  /** Source of the answer prompt (`answer-with-facts`). @default defaultPromptProvider */
  promptProvider?: IPromptProvider | undefined;
  /** Reranks what search and ask retrieve, unless a request says `rerank: false`. @default none */
  reranker?: ITextReranker | undefined;
}

/** One search or ask request, already validated (except `args`, checked by the client). */
export interface RetrievalRequest {
  index: string;
  filters: MemoryFilter[];
  /** Cosine floor of the matches; undefined: the client's `defaultMinRelevance` (and, for ask, its answer floor). */
  minRelevance?: number | undefined;
  limit?: number;
  /** `vector`, `lexical` or `hybrid`; undefined: the client's `defaultMode` when the memory DB supports it. */
  mode?: SearchMode | undefined;
  /** How `hybrid` fuses its rankings. */
  fusion?: HybridFusion | undefined;
  /** `true` the configured reranker, `'mmr'` MMR, `false` none; undefined: the configured one, if any. */
  rerank?: boolean | 'mmr' | undefined;
  /** KM's per-request arguments (`custom_rag_*`, ...); see `checkRetrievalArgs`. */
  args?: Record<string, unknown> | undefined;
  signal?: AbortSignal | undefined;
}

/** Reason given when memory holds nothing relevant. */
export const NO_MEMORIES_REASON = 'No relevant memories available';
/** Reason given when the model could not answer from the facts. */
export const NOT_FOUND_REASON = 'No relevant memories found';

type Match = [MemoryRecord, number];

/** A request's resolved mode, fusion and reranker. */
interface RetrievalPlan {
  mode: SearchMode;
  fusion: HybridFusion | undefined;
  reranker: ITextReranker | undefined;
}

/** What retrieval found, in final order, with the query's embedding when it computed one. */
interface Retrieved {
  matches: Match[];
  mode: SearchMode;
  queryVector?: Float32Array | undefined;
}

/**
 * Search (citations grouped by source file) and ask (RAG with a token budget, or an
 * extractive answer when no text generator is configured). Both honour KM's per-request
 * arguments and refuse unknown or ill-typed ones before doing anything.
 */
export class SearchClient {
  private readonly options: SearchClientOptions;
  private readonly queryCache: QueryEmbeddingCacheOptions | false;

  constructor(
    private readonly deps: SearchClientDependencies,
    settings: SearchClientSettings = {},
  ) {
    const { queryCache, ...options } = settings;
    this.options = { ...DEFAULT_SEARCH_OPTIONS, ...options };
    const max = this.options.maxQueryTokens;
    if (!Number.isInteger(max) || max < 1)
      throw new InvalidInputError('invalid_argument', `maxQueryTokens must be a positive integer, got ${max}`);
    this.queryCache = queryCache ?? {};
  }

  /**
   * The part of a query or question retrieval reads: its first `maxQueryTokens` cl100k tokens,
   * or the embedding model's `maxTokens` if smaller (see `SearchClientOptions.maxQueryTokens`).
   */
  boundQuery(text: string): string {
    const modelMax = this.deps.embeddingGenerator?.maxTokens;
    const limit = Math.min(this.options.maxQueryTokens, modelMax !== undefined && modelMax > 0 ? modelMax : Infinity);
    const bounded = QUERY_TOKENIZER.truncate(text, limit);
    if (bounded.length < text.length)
      this.deps.logger.debug('query cut to its first tokens', { maxQueryTokens: limit, characters: text.length, kept: bounded.length });
    return bounded;
  }

  /** Search in a `km.search` span. */
  search(query: string, request: RetrievalRequest): Promise<SearchResult> {
    return withSpan('km.search', { [KmAttributes.index]: request.index }, async (span) => {
      const result = await this.searchOnce(query, request);
      span.setAttribute(KmAttributes.results, result.results.length);
      return result;
    });
  }

  private async searchOnce(query: string, request: RetrievalRequest): Promise<SearchResult> {
    const args = checkRetrievalArgs(request.args);
    await checkEmbeddingModelName(args.embeddingModelName, this.deps.embeddingGenerator);
    const plan = this.plan(request);
    const max = args.maxMatchesCount ?? this.options.maxMatchesCount;
    const limit = request.limit !== undefined && request.limit > 0 ? request.limit : max;
    const collector = new CitationCollector(request.index);
    const op = operationSignal(request.signal);
    try {
      const scoped = { ...request, signal: op.signal };
      if (query.trim() === '') {
        // Kernel Memory lists by filters when the query is empty.
        for await (const record of this.deps.memoryDb.getList(request.index, { filters: request.filters, limit, ...sig(scoped) })) {
          collector.add(record, 0);
        }
      } else {
        const bounded = this.boundQuery(query);
        for (const [record, relevance] of (await this.retrieve(bounded, scoped, limit, plan)).matches) collector.add(record, relevance);
      }
    } finally {
      op.release();
    }
    const results = collector.citations;
    return { query, noResult: results.length === 0, results };
  }

  async ask(question: string, request: RetrievalRequest): Promise<MemoryAnswer> {
    let text = '';
    let sources: MemoryAnswer['relevantSources'] = [];
    let last: MemoryAnswer | undefined;
    for await (const chunk of this.askStreaming(question, request)) {
      text += chunk.text;
      if (chunk.relevantSources.length > 0) sources = chunk.relevantSources;
      last = chunk;
    }
    return {
      question,
      noResult: last!.noResult,
      ...(last!.noResultReason ? { noResultReason: last!.noResultReason } : {}),
      text,
      relevantSources: sources,
      tokenUsage: last!.tokenUsage,
    };
  }

  /**
   * The answer in chunks: `reset` (question and sources, the only chunk that lists them),
   * `append` (text), `last` (outcome and token usage). Concatenating the `text` of every
   * chunk gives the whole answer; KM's clients, which merge the sources of every chunk, see
   * each source once. The whole answer runs in a `km.ask` span.
   */
  askStreaming(question: string, request: RetrievalRequest): AsyncIterable<MemoryAnswer> {
    return traceIterable('km.ask', { [KmAttributes.index]: request.index }, () => this.answerStream(question, request));
  }

  private async *answerStream(question: string, request: RetrievalRequest): AsyncIterable<MemoryAnswer> {
    const args = checkRetrievalArgs(request.args);
    if (typeof question !== 'string' || question.trim() === '') {
      throw new InvalidInputError('invalid_argument', 'the question is empty');
    }
    this.checkModelName(args);
    await checkEmbeddingModelName(args.embeddingModelName, this.deps.embeddingGenerator);
    const emptyAnswer = args.emptyAnswer ?? NOT_FOUND_ANSWER;
    this.checkAnswerTokens(question, args, emptyAnswer);
    const plan = this.plan(request);
    const op = operationSignal(request.signal);
    try {
      const scoped = { ...request, signal: op.signal };
      // Retrieval and the extractive answer read a bounded question; the answer echoes it whole.
      const asked = this.boundQuery(question);
      const retrieved = await this.retrieve(asked, scoped, args.maxMatchesCount ?? this.options.maxMatchesCount, plan);
      if (retrieved.matches.length === 0) {
        yield this.answer(question, 'last', { noResult: true, noResultReason: NO_MEMORIES_REASON, text: emptyAnswer });
        return;
      }
      if (this.deps.textGenerator) yield* this.generate(question, retrieved.matches, scoped, args, emptyAnswer);
      else yield* this.extract(question, asked, retrieved, scoped, emptyAnswer);
    } finally {
      op.release();
    }
  }

  /** Refuses a model name the text generator cannot switch to. */
  private checkModelName(args: RetrievalArgs): void {
    const name = args.textGenerationModelName;
    if (name === undefined) return;
    const generator = this.deps.textGenerator;
    if (!generator) {
      throw new InvalidInputError(
        'invalid_argument',
        `argument "${RequestArgs.textGenerationModelName}" needs a text generator; none is configured (answers are extractive)`,
      );
    }
    if (!generator.supportsModelOverride && name !== generator.modelName) {
      throw new InvalidInputError(
        'invalid_argument',
        `argument "${RequestArgs.textGenerationModelName}": the text generator${generator.modelName ? ` (${generator.modelName})` : ''} cannot switch to model "${name}"`,
      );
    }
  }

  private answerTemplate(args: RetrievalArgs): string {
    return args.prompt ?? readPrompt(this.deps.promptProvider ?? defaultPromptProvider, PromptNames.answerWithFacts);
  }

  /** Tokens of the answer prompt without facts. */
  private skeletonTokens(template: string, question: string, emptyAnswer: string): number {
    return this.deps.textGenerator!.tokenizer.countTokens(renderPrompt(template, { facts: '', input: question, notFound: emptyAnswer }));
  }

  /**
   * Refuses a `custom_rag_max_tokens_int` that leaves no room for facts in the text generator's
   * context (the prompt and the answer would fill it), naming the largest value that does.
   */
  private checkAnswerTokens(question: string, args: RetrievalArgs, emptyAnswer: string): void {
    const generator = this.deps.textGenerator;
    if (args.maxTokens === undefined || !generator) return;
    const prompt = this.skeletonTokens(this.answerTemplate(args), question, emptyAnswer);
    // At least one token of facts must fit.
    const limit = generator.maxTokenTotal - prompt - 1;
    if (args.maxTokens > limit) {
      throw new InvalidInputError(
        'invalid_argument',
        `argument "${RequestArgs.ragMaxTokens}" (${args.maxTokens}) leaves no room for facts: the text generator holds ${generator.maxTokenTotal} tokens (maxTokenTotal), the prompt without facts takes ${prompt}; the largest value accepted is ${Math.max(0, limit)}`,
      );
    }
  }

  private async *generate(
    question: string,
    matches: Match[],
    request: RetrievalRequest,
    args: RetrievalArgs,
    emptyAnswer: string,
  ): AsyncIterable<MemoryAnswer> {
    const generator = this.deps.textGenerator!;
    const tokenizer = generator.tokenizer;
    const template = this.answerTemplate(args);
    const factTemplate = args.factTemplate ?? FACT_TEMPLATE;
    const includeDuplicates = args.includeDuplicateFacts ?? this.options.includeDuplicateFacts;
    const answerTokens = args.maxTokens ?? this.options.answerTokens;
    let budget = generator.maxTokenTotal - this.skeletonTokens(template, question, emptyAnswer) - answerTokens;
    const collector = new CitationCollector(request.index);
    const inPrompt = new Set<string>();
    let facts = '';
    for (const [record, relevance] of matches) {
      const content = String(record.payload[PayloadFields.text] ?? '').trim();
      if (content === '') continue;
      // KM's rule: a duplicate (same text, any case) stays out of the prompt but keeps its citation.
      const key = content.toLowerCase();
      if (includeDuplicates || !inPrompt.has(key)) {
        const fact = renderFact(factTemplate, {
          content,
          source: factSource(record, request.index),
          relevance,
          memoryId: record.id,
          tags: record.tags,
          payload: record.payload,
        });
        const cost = tokenizer.countTokens(fact);
        if (cost > budget) break;
        budget -= cost;
        facts += fact;
        inPrompt.add(key);
      }
      collector.add(record, relevance);
    }
    if (facts === '') {
      this.deps.logger.warn('no fact fits the prompt budget of the text generator', { maxTokenTotal: generator.maxTokenTotal });
      yield this.answer(question, 'last', { noResult: true, noResultReason: NO_MEMORIES_REASON, text: emptyAnswer });
      return;
    }
    // As KM: the facts without their last newline.
    const prompt = renderPrompt(template, { facts: facts.trim(), input: question, notFound: emptyAnswer });
    yield this.answer(question, 'reset', { relevantSources: collector.citations });
    let text = '';
    let serviceUsage: TokenUsage | undefined;
    const modelName = args.textGenerationModelName ?? generator.modelName;
    let usage: TokenUsage | undefined;
    const usageOf = (): TokenUsage =>
      (usage ??= {
        timestamp: new Date().toISOString(),
        serviceType: 'text-generation',
        modelType: 'TextGeneration',
        ...(modelName ? { modelName } : {}),
        tokenizerTokensIn: tokenizer.countTokens(prompt),
        tokenizerTokensOut: tokenizer.countTokens(text),
        ...(serviceUsage ?? {}),
      });
    const options: TextGenerationOptions = {
      maxTokens: answerTokens,
      temperature: args.temperature ?? this.options.temperature,
      ...(args.nucleusSampling !== undefined ? { nucleusSampling: args.nucleusSampling } : {}),
      ...(args.textGenerationModelName !== undefined ? { modelName: args.textGenerationModelName } : {}),
      onUsage: (u) => (serviceUsage = u),
      ...sig(request),
    };
    const pieces = traceIterable(
      'km.text_generation',
      generationAttributes(modelName, options.maxTokens, options.temperature),
      () => generator.generate(prompt, options),
      { onDone: (span) => span.setAttributes(usageTokenAttributes(usageOf())) },
    );
    for await (const piece of pieces) {
      text += piece;
      if (piece) yield this.answer(question, 'append', { text: piece });
    }
    const notFound = text.trim() === '' || sameAnswer(text, emptyAnswer);
    yield this.answer(question, 'last', {
      noResult: notFound,
      ...(notFound ? { noResultReason: NOT_FOUND_REASON } : {}),
      tokenUsage: [usageOf()],
    });
  }

  /** The extractive answer to `question`, chosen for `asked`, its bounded text (see {@link boundQuery}). */
  private async *extract(
    question: string,
    asked: string,
    retrieved: Retrieved,
    request: RetrievalRequest,
    emptyAnswer: string,
  ): AsyncIterable<MemoryAnswer> {
    // Each partition's content terms, read once (when first needed) for the answerability check and the merge.
    const terms = new Map<MemoryRecord, string[]>();
    const termsOf = (record: MemoryRecord) => {
      let found = terms.get(record);
      if (!found) terms.set(record, (found = contentTerms(String(record.payload[PayloadFields.text] ?? ''))));
      return found;
    };
    const passages = mergeNearDuplicates(retrieved.matches.slice(0, 20), termsOf);
    const unrelated = this.notAnswerable(asked, retrieved, request, termsOf);
    if (unrelated) {
      yield this.answer(question, 'last', { noResult: true, noResultReason: unrelated, text: emptyAnswer });
      return;
    }
    const sentences = await selectSentences(asked, passages, {
      count: this.options.extractiveSentences,
      generator: this.deps.embeddingGenerator,
      queryVector: retrieved.queryVector,
      signal: request.signal,
    });
    if (sentences.length === 0) {
      yield this.answer(question, 'last', { noResult: true, noResultReason: NOT_FOUND_REASON, text: emptyAnswer });
      return;
    }
    const collector = new CitationCollector(request.index);
    const used = new Set<MemoryRecord>();
    for (const s of sentences) {
      for (const [record, relevance] of [[s.record, s.relevance] as Match, ...s.duplicates]) {
        if (used.has(record)) continue;
        used.add(record);
        collector.add(record, relevance);
      }
    }
    yield this.answer(question, 'reset', { relevantSources: collector.citations });
    yield this.answer(question, 'append', { text: formatExtractiveAnswer(sentences, (record) => collector.numberOf(record)) });
    yield this.answer(question, 'last', {});
  }

  /**
   * The reason to answer "not found" when the retrieved passages do not answer the question
   * (only when the caller gave no `minRelevance`): the answerability model (see
   * `answerability.ts`) scores the word evidence of the best passages and, with a calibrated
   * embedding model in `vector` and `hybrid` modes, their cosine; below 0, memory cannot answer.
   * An explicit `answerFloor` also refuses a best cosine below it.
   */
  private notAnswerable(
    question: string,
    retrieved: Retrieved,
    request: RetrievalRequest,
    termsOf: (record: MemoryRecord) => string[],
  ): string | undefined {
    if (request.minRelevance !== undefined || retrieved.matches.length === 0) return undefined;
    // The relevance is a cosine unless the words alone ranked (lexical mode, or a store without vectors).
    const cosine = retrieved.mode !== 'lexical' && this.deps.memoryDb.capabilities?.vectorSearch !== false;
    const floor = this.options.answerFloor;
    const best = Math.max(...retrieved.matches.slice(0, 5).map(([, relevance]) => relevance));
    if (cosine && floor !== undefined && best < floor) {
      return `${NOT_FOUND_REASON}: the best relevance ${best.toFixed(3)} is below the answer floor ${floor}`;
    }
    const configured = this.options.answerability;
    if (configured === false) return undefined;
    const model = configured ?? (cosine ? answerabilityModelFor(this.deps.embeddingGenerator) : LEXICAL_ANSWERABILITY);
    const pool = retrieved.matches.map(([record, relevance]) => ({ terms: termsOf(record), relevance }));
    const evidence = answerEvidence(questionTerms(question), pool);
    const score = answerabilityScore(model, cosine ? evidence : { ...evidence, cosine: 0 });
    if (score >= 0) return undefined;
    const meaning = cosine && model.cosine !== 0 ? `, best relevance ${evidence.cosine.toFixed(3)}` : '';
    return `${NOT_FOUND_REASON}: the passages found answer too little of the question (word evidence ${evidence.lexical.toFixed(2)}${meaning}; answerability ${score.toFixed(2)} < 0)`;
  }

  private answer(question: string, streamState: MemoryAnswer['streamState'], fields: Partial<MemoryAnswer>): MemoryAnswer {
    return { streamState, question, noResult: false, text: '', relevantSources: [], tokenUsage: [], ...fields };
  }

  /** The search mode of a request: its own, else the default when the memory DB supports it, else `vector`. */
  private modeOf(request: RetrievalRequest): SearchMode {
    const asked = checkMode(request.mode);
    if (asked) return asked;
    const mode = this.options.defaultMode;
    const capabilities = this.deps.memoryDb.capabilities;
    if (mode === 'vector' || capabilities?.lexicalSearch !== true) return 'vector';
    // A store without vectors (SimpleTextDb) cannot fuse; its plain search already ranks the words.
    return mode === 'hybrid' && capabilities.vectorSearch === false ? 'vector' : mode;
  }

  /** Checks a request's mode, fusion and rerank (`invalid_argument` naming the field) and resolves them. */
  private plan(request: RetrievalRequest): RetrievalPlan {
    return {
      mode: this.modeOf(request),
      fusion: checkFusion(request.fusion),
      reranker: chooseReranker(checkRerank(request.rerank), this.deps.reranker),
    };
  }

  private async retrieve(query: string, request: RetrievalRequest, limit: number, plan: RetrievalPlan): Promise<Retrieved> {
    const { memoryDb, embeddingGenerator } = this.deps;
    const { mode, fusion, reranker } = plan;
    let target: string | Float32Array = query;
    let queryVector: Float32Array | undefined;
    if (mode !== 'lexical' && memoryDb.capabilities?.vectorSearch !== false && embeddingGenerator) {
      const generator = embeddingGenerator;
      queryVector = await withSpan('km.embeddings', embeddingAttributes(generator.modelName, 'query', 1), (span) => {
        if (span.isRecording()) span.setAttributes(tokenAttributes(generator.tokenizer.countTokens(query)));
        return embedQuery(generator, query, request.signal, this.queryCache);
      });
      target = queryVector;
    }
    const options: SimilarityOptions = {
      mode,
      text: query,
      ...(fusion ? { fusion } : {}),
      filters: request.filters,
      minRelevance: request.minRelevance ?? this.options.defaultMinRelevance,
      limit,
      withEmbeddings: reranker?.needsVectors === true,
      ...sig(request),
    };
    let matches: Match[] = [];
    for await (const match of memoryDb.getSimilarList(request.index, target, options)) matches.push(match);
    if (reranker) {
      matches = await rerankMatches(reranker, query, matches, { queryVector, embeddingGenerator, mode, signal: request.signal });
    }
    return { matches, mode, queryVector };
  }
}

/** Counts query tokens for {@link SearchClient.boundQuery}: core's tokenizer, whatever the embedding model. */
const QUERY_TOKENIZER = new CL100KTokenizer();

/** The source name shown to the model: the page URL of a web page, else the file name. */
function factSource(record: MemoryRecord, index: string): string {
  const url = record.payload[PayloadFields.url];
  if (typeof url === 'string' && url.trim() !== '') return sourceUrlOf(record, index);
  return String(record.payload[PayloadFields.file] ?? '');
}

/** KM's comparison of an answer with the empty answer: case-insensitive, surrounding punctuation ignored. */
function sameAnswer(value: string, target: string): boolean {
  const strip = (s: string) =>
    s
      .trim()
      .replace(/^[\s.'"`~!?@#$%^+*_\-=|\\/()[\]{}<>]+|[\s.'"`~!?@#$%^+*_\-=|\\/()[\]{}<>]+$/g, '')
      .toLowerCase();
  return strip(value) === strip(target);
}

function sig(request: { signal?: AbortSignal | undefined }): { signal?: AbortSignal } {
  return request.signal ? { signal: request.signal } : {};
}
