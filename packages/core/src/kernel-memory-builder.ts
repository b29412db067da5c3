import { join } from 'node:path';
import { DiskContentStorage } from './content-storage/disk-content-storage.js';
import { MemoryContentStorage } from './content-storage/memory-content-storage.js';
import { HashingEmbeddingGenerator } from './ai/hashing-embedding-generator.js';
import type { IContentDecoder } from './contracts/content-decoder.js';
import type { IContentStorage } from './contracts/content-storage.js';
import type { IMemoryDb } from './contracts/memory-db.js';
import type { IPipelineStepHandler } from './contracts/pipeline-step-handler.js';
import type { ITextEmbeddingGenerator } from './contracts/text-embedding-generator.js';
import type { ITextGenerator } from './contracts/text-generator.js';
import type { ITextReranker } from './contracts/text-reranker.js';
import { DecoderRegistry } from './decoders/decoder-registry.js';
import { createDefaultHandlers } from './handlers/default-handlers.js';
import { SimpleVectorDb } from './memory-storage/simple-vector-db.js';
import { MemoryServerless } from './memory-serverless.js';
import { InProcessPipelineOrchestrator, type OrchestratorOptions } from './pipeline/in-process-orchestrator.js';
import { DistributedPipelineOrchestrator } from './pipeline/distributed-orchestrator.js';
import type { PipelineOrchestrator } from './pipeline/pipeline-orchestrator.js';
import type { StepQueueFactory } from './pipeline/step-attempts.js';
import { FileQueue } from './queue/file-queue.js';
import { InMemoryQueue } from './queue/in-memory-queue.js';
import { InMemoryQueueBroker } from './queue/in-memory-queue-broker.js';
import { MemoryService } from './memory-service.js';
import type { EmbeddingOptions, ExtractionOptions, PartitionOptions, PipelineContext } from './pipeline/pipeline-context.js';
import type { IPromptProvider, PromptProviderContext } from './search/prompt-provider.js';
import { SearchClient, type SearchClientSettings } from './search/search-client.js';
import { createConsoleLogger, type Logger } from './util/logger.js';
import { WebPageFetcher, type IWebPageFetcher } from './web/web-page-fetcher.js';

/** A handler, or a function that makes one from the pipeline context. */
export type HandlerFactory = IPipelineStepHandler | ((context: PipelineContext) => IPipelineStepHandler);

/**
 * Assembles a `MemoryServerless`. Anything not set falls back to the embedded defaults:
 * volatile (or, with `withDataDirectory`, on-disk) content storage and SimpleVectorDb,
 * the offline model of `@km/ai-local` when it is installed (else hashing embeddings, with a
 * warning), and extractive answers (no text generator).
 *
 * ```ts
 * const memory = new KernelMemoryBuilder()
 *   .withDataDirectory('./km-data')
 *   .withHandler(new MyCustomStep())
 *   .build();
 * ```
 */
export class KernelMemoryBuilder {
  private readonly memoryDbs: IMemoryDb[] = [];
  private contentStorage: IContentStorage | undefined;
  private embeddingGenerator: ITextEmbeddingGenerator | null | undefined;
  private textGenerator: ITextGenerator | undefined;
  private readonly handlers: HandlerFactory[] = [];
  private readonly decoders = DecoderRegistry.withDefaults();
  private extraction: Partial<ExtractionOptions> = {};
  private dataDirectory: string | undefined;
  private logger: Logger | undefined;
  private partitioning: Partial<PartitionOptions> = {};
  private embedding: Partial<EmbeddingOptions> = {};
  private searchOptions: SearchClientSettings = {};
  private reranker: ITextReranker | undefined;
  private orchestratorOptions: OrchestratorOptions = {};
  private webFetcher: IWebPageFetcher | undefined;
  private queueFactory: StepQueueFactory | undefined;
  private promptProvider: IPromptProvider | undefined;

  /** Adds a memory DB. Records go to every DB added; search reads the first. */
  withMemoryDb(db: IMemoryDb): this {
    this.memoryDbs.push(db);
    return this;
  }

  withContentStorage(storage: IContentStorage): this {
    this.contentStorage = storage;
    return this;
  }

  /**
   * Sets the embedding generator; `null` means none (keyword-only memory DBs). Without this
   * call the memory uses {@link HashingEmbeddingGenerator} (words, not meaning) and says so in
   * a warning: core loads no model package by itself. The offline model is
   * `createDefaultEmbeddingGenerator()` of `@km/ai-local`.
   */
  withEmbeddingGenerator(generator: ITextEmbeddingGenerator | null): this {
    this.embeddingGenerator = generator;
    return this;
  }

  /** Sets the text generator used by ask and summarize; without one, answers are extractive. */
  withTextGenerator(generator: ITextGenerator): this {
    this.textGenerator = generator;
    return this;
  }

  /**
   * Replaces the prompts of ask (`answer-with-facts`) and of the summarize step (`summarize`),
   * as KM's `IPromptProvider`. A request's `custom_rag_prompt_str` still wins for one ask.
   *
   * ```ts
   * builder.withPromptProvider({
   *   readPrompt: (name) => (name === 'summarize' ? 'Summarize in French:\n{{$input}}' : defaultPromptProvider.readPrompt(name)),
   * });
   * ```
   */
  withPromptProvider(provider: IPromptProvider): this {
    this.promptProvider = provider;
    return this;
  }

  /** Registers a handler by its step name, replacing the built-in one of that name. */
  withHandler(handler: HandlerFactory): this {
    this.handlers.push(handler);
    return this;
  }

  /** Settings of the extract step, e.g. the per-file decoder time limit. */
  withExtractionOptions(options: Partial<ExtractionOptions>): this {
    this.extraction = { ...this.extraction, ...options };
    return this;
  }

  /** Registers a decoder; it wins over built-ins for the MIME types it supports. */
  withDecoder(decoder: IContentDecoder): this {
    this.decoders.register(decoder);
    return this;
  }

  /** Persists files and vectors under this folder (`files/`, `vectors/`) unless set otherwise. */
  withDataDirectory(directory: string): this {
    this.dataDirectory = directory;
    return this;
  }

  withLogger(logger: Logger): this {
    this.logger = logger;
    return this;
  }

  withPartitionOptions(options: Partial<PartitionOptions>): this {
    this.partitioning = { ...this.partitioning, ...options };
    return this;
  }

  withEmbeddingOptions(options: Partial<EmbeddingOptions>): this {
    this.embedding = { ...this.embedding, ...options };
    return this;
  }

  /**
   * Reranks what search and ask retrieve (a cross-encoder, a reranking API, or
   * `new MmrReranker()` for diversity), unless a request says `rerank: false`. @default none
   */
  withReranker(reranker: ITextReranker | null): this {
    this.reranker = reranker ?? undefined;
    return this;
  }

  /**
   * Settings of search and ask (merged with earlier calls), including `queryCache`: sizes of the
   * query-embedding cache, or `false` to embed every query.
   */
  withSearchOptions(options: SearchClientSettings): this {
    this.searchOptions = { ...this.searchOptions, ...options };
    return this;
  }

  withOrchestratorOptions(options: OrchestratorOptions): this {
    this.orchestratorOptions = { ...this.orchestratorOptions, ...options };
    return this;
  }

  withWebPageFetcher(fetcher: IWebPageFetcher): this {
    this.webFetcher = fetcher;
    return this;
  }

  /**
   * Sets the queues of {@link buildService}: a new client per step name. The factory is told
   * the delivery cap derived from the orchestrator's step attempts (`settings.maxAttempts`);
   * pass it on rather than configuring the queue's own.
   */
  withQueueFactory(factory: StepQueueFactory): this {
    this.queueFactory = factory;
    return this;
  }

  /** A memory that runs each import to completion in this process before returning. */
  build(): MemoryServerless {
    const { context, searchClient } = this.assemble();
    const orchestrator = new InProcessPipelineOrchestrator(context, this.orchestratorOptions);
    return new MemoryServerless(this.register(orchestrator, context), searchClient, this.webFetcher ?? new WebPageFetcher());
  }

  /**
   * A memory whose imports return once the files are stored and the first step is queued;
   * the steps run wherever the queues are consumed (this process after `start()`, and any
   * `km worker`). Queues default to a {@link FileQueue} under the data directory, or to
   * in-memory queues without one.
   *
   * ```ts
   * const memory = new KernelMemoryBuilder().withDataDirectory('./km-data').buildService();
   * await memory.start();
   * const id = await memory.importText('Queued, then ingested in the background.');
   * ```
   */
  buildService(): MemoryService {
    const { context, searchClient } = this.assemble();
    let queueFactory = this.queueFactory;
    if (!queueFactory) {
      const dir = this.dataDirectory;
      const broker = new InMemoryQueueBroker();
      queueFactory = dir
        ? (_step, { maxAttempts }) => new FileQueue({ directory: join(dir, 'queues'), maxAttempts })
        : (_step, { maxAttempts }) => new InMemoryQueue({ broker, maxAttempts });
    }
    const orchestrator = new DistributedPipelineOrchestrator(context, { ...this.orchestratorOptions, queueFactory });
    this.register(orchestrator, context);
    return new MemoryService(orchestrator, searchClient, this.webFetcher ?? new WebPageFetcher());
  }

  private register<T extends PipelineOrchestrator>(orchestrator: T, context: PipelineContext): T {
    for (const handler of createDefaultHandlers(context)) orchestrator.addHandler(handler);
    for (const h of this.handlers) orchestrator.addHandler(typeof h === 'function' ? h(context) : h);
    return orchestrator;
  }

  private assemble(): { context: PipelineContext; searchClient: SearchClient } {
    const dir = this.dataDirectory;
    const logger = this.logger ?? createConsoleLogger();
    const embeddingGenerator = this.embeddingGenerator === undefined ? fallbackEmbeddings(logger) : (this.embeddingGenerator ?? undefined);
    const memoryDbs =
      this.memoryDbs.length > 0
        ? [...this.memoryDbs]
        : [new SimpleVectorDb(dir ? { directory: join(dir, 'vectors'), logger } : { logger })];
    const context: PipelineContext & PromptProviderContext = {
      contentStorage: this.contentStorage ?? (dir ? new DiskContentStorage({ directory: join(dir, 'files') }) : new MemoryContentStorage()),
      memoryDbs,
      embeddingGenerator,
      textGenerator: this.textGenerator,
      decoders: this.decoders,
      extraction: { decoderTimeoutMs: 120_000, ...this.extraction },
      logger,
      partitioning: { maxTokensPerChunk: 1000, overlapTokens: 100, ...this.partitioning },
      embedding: { concurrency: 4, ...this.embedding },
      promptProvider: this.promptProvider,
    };
    const searchClient = new SearchClient(
      {
        memoryDb: memoryDbs[0]!,
        embeddingGenerator,
        textGenerator: this.textGenerator,
        logger: context.logger,
        promptProvider: this.promptProvider,
        reranker: this.reranker,
      },
      this.searchOptions,
    );
    return { context, searchClient };
  }
}

/** The visible fallback when the application chose no embedding generator. */
function fallbackEmbeddings(logger: Logger): ITextEmbeddingGenerator {
  logger.warn(
    'no embedding generator configured: using hashing embeddings, which match words, not meaning. ' +
      "Choose one with withEmbeddingGenerator(), e.g. createDefaultEmbeddingGenerator() from '@km/ai-local' (offline) or an OpenAI one.",
  );
  return new HashingEmbeddingGenerator();
}
