import type { IMemoryDb } from '../contracts/memory-db.js';
import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { ITextGenerator } from '../contracts/text-generator.js';
import { InvalidInputError } from '../errors/km-error.js';
import { NOT_FOUND_ANSWER } from '../models/constants.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import type { MemoryAnswer, SearchResult, TokenUsage } from '../models/search-models.js';
import type { Logger } from '../util/logger.js';
import { CitationCollector } from './citations.js';
import { formatExtractiveAnswer, selectSentences } from './extractive-answer.js';
import { ANSWER_PROMPT, renderPrompt } from './prompts.js';
import { DEFAULT_SEARCH_OPTIONS, type SearchClientOptions } from './search-options.js';

/** What the search client reads from. */
export interface SearchClientDependencies {
  memoryDb: IMemoryDb;
  embeddingGenerator: ITextEmbeddingGenerator | undefined;
  textGenerator: ITextGenerator | undefined;
  logger: Logger;
}

/** One search or ask request, already validated. */
export interface RetrievalRequest {
  index: string;
  filters: MemoryFilter[];
  minRelevance: number;
  limit?: number;
  signal?: AbortSignal | undefined;
}

/** Reason given when memory holds nothing relevant. */
export const NO_MEMORIES_REASON = 'No relevant memories available';
/** Reason given when the model could not answer from the facts. */
export const NOT_FOUND_REASON = 'No relevant memories found';

/**
 * Search (citations grouped by source file) and ask (RAG with a token budget, or an
 * extractive answer when no text generator is configured).
 */
export class SearchClient {
  private readonly options: SearchClientOptions;

  constructor(
    private readonly deps: SearchClientDependencies,
    options: Partial<SearchClientOptions> = {},
  ) {
    this.options = { ...DEFAULT_SEARCH_OPTIONS, ...options };
  }

  async search(query: string, request: RetrievalRequest): Promise<SearchResult> {
    const limit = request.limit !== undefined && request.limit > 0 ? request.limit : this.options.maxMatchesCount;
    const collector = new CitationCollector(request.index);
    if (query.trim() === '') {
      // Kernel Memory lists by filters when the query is empty.
      for await (const record of this.deps.memoryDb.getList(request.index, { filters: request.filters, limit, ...sig(request) })) {
        collector.add(record, 0);
      }
    } else {
      for (const [record, relevance] of await this.retrieve(query, request, limit)) collector.add(record, relevance);
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
   * The answer in chunks: `reset` (question and sources), `append` (text), `last` (outcome and
   * token usage). Concatenating the `text` of every chunk gives the whole answer.
   */
  async *askStreaming(question: string, request: RetrievalRequest): AsyncIterable<MemoryAnswer> {
    if (typeof question !== 'string' || question.trim() === '') {
      throw new InvalidInputError('invalid_argument', 'the question is empty');
    }
    const matches = await this.retrieve(question, request, this.options.maxMatchesCount);
    if (matches.length === 0) {
      yield this.answer(question, 'last', { noResult: true, noResultReason: NO_MEMORIES_REASON, text: NOT_FOUND_ANSWER });
      return;
    }
    if (this.deps.textGenerator) yield* this.generate(question, matches, request);
    else yield* this.extract(question, matches, request);
  }

  private async *generate(question: string, matches: Array<[MemoryRecord, number]>, request: RetrievalRequest): AsyncIterable<MemoryAnswer> {
    const generator = this.deps.textGenerator!;
    const tokenizer = generator.tokenizer;
    const skeleton = renderPrompt(ANSWER_PROMPT, { facts: '', input: question, notFound: NOT_FOUND_ANSWER });
    let budget = generator.maxTokenTotal - tokenizer.countTokens(skeleton) - this.options.answerTokens;
    const collector = new CitationCollector(request.index);
    let facts = '';
    for (const [record, relevance] of matches) {
      const fact = `==== [File:${String(record.payload[PayloadFields.file] ?? '')};Relevance:${(relevance * 100).toFixed(1)}%]:\n${String(record.payload[PayloadFields.text] ?? '')}\n`;
      const cost = tokenizer.countTokens(fact);
      if (cost > budget) break;
      budget -= cost;
      facts += fact;
      collector.add(record, relevance);
    }
    if (facts === '') {
      this.deps.logger.warn('no fact fits the prompt budget of the text generator', { maxTokenTotal: generator.maxTokenTotal });
      yield this.answer(question, 'last', { noResult: true, noResultReason: NO_MEMORIES_REASON, text: NOT_FOUND_ANSWER });
      return;
    }
    const prompt = renderPrompt(ANSWER_PROMPT, { facts, input: question, notFound: NOT_FOUND_ANSWER });
    const sources = collector.citations;
    yield this.answer(question, 'reset', { relevantSources: sources });
    let text = '';
    let serviceUsage: TokenUsage | undefined;
    for await (const piece of generator.generate(prompt, {
      maxTokens: this.options.answerTokens,
      temperature: this.options.temperature,
      onUsage: (u) => (serviceUsage = u),
      ...sig(request),
    })) {
      text += piece;
      if (piece) yield this.answer(question, 'append', { text: piece });
    }
    const notFound = text.trim().replace(/[.'"]/g, '').toUpperCase() === NOT_FOUND_ANSWER;
    const usage: TokenUsage = {
      timestamp: new Date().toISOString(),
      serviceType: 'text-generation',
      modelType: 'TextGeneration',
      ...(generator.modelName ? { modelName: generator.modelName } : {}),
      tokenizerTokensIn: tokenizer.countTokens(prompt),
      tokenizerTokensOut: tokenizer.countTokens(text),
      ...(serviceUsage ?? {}),
    };
    yield this.answer(question, 'last', {
      noResult: notFound,
      ...(notFound ? { noResultReason: NOT_FOUND_REASON } : {}),
      relevantSources: sources,
      tokenUsage: [usage],
    });
  }

  private async *extract(question: string, matches: Array<[MemoryRecord, number]>, request: RetrievalRequest): AsyncIterable<MemoryAnswer> {
    const sentences = await selectSentences(question, matches, this.options.extractiveSentences, this.deps.embeddingGenerator, request.signal);
    if (sentences.length === 0) {
      yield this.answer(question, 'last', { noResult: true, noResultReason: NOT_FOUND_REASON, text: NOT_FOUND_ANSWER });
      return;
    }
    const collector = new CitationCollector(request.index);
    const used = new Set<MemoryRecord>();
    for (const s of sentences) {
      if (used.has(s.record)) continue;
      used.add(s.record);
      collector.add(s.record, s.relevance);
    }
    const sources = collector.citations;
    yield this.answer(question, 'reset', { relevantSources: sources });
    yield this.answer(question, 'append', { text: formatExtractiveAnswer(sentences) });
    yield this.answer(question, 'last', { relevantSources: sources });
  }

  private answer(question: string, streamState: MemoryAnswer['streamState'], fields: Partial<MemoryAnswer>): MemoryAnswer {
    return { streamState, question, noResult: false, text: '', relevantSources: [], tokenUsage: [], ...fields };
  }

  private async retrieve(query: string, request: RetrievalRequest, limit: number): Promise<Array<[MemoryRecord, number]>> {
    const { memoryDb, embeddingGenerator } = this.deps;
    let target: string | Float32Array = query;
    if (memoryDb.capabilities?.vectorSearch !== false && embeddingGenerator) {
      [target] = (await embeddingGenerator.generateEmbeddings([query], request.signal)) as [Float32Array];
    }
    const out: Array<[MemoryRecord, number]> = [];
    for await (const match of memoryDb.getSimilarList(request.index, target, {
      filters: request.filters,
      minRelevance: request.minRelevance,
      limit,
      withEmbeddings: false,
      ...sig(request),
    })) {
      out.push(match);
    }
    return out;
  }
}

function sig(request: { signal?: AbortSignal | undefined }): { signal?: AbortSignal } {
  return request.signal ? { signal: request.signal } : {};
}
