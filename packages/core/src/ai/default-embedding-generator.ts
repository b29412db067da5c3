import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EmbeddingRequestOptions, ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { ITextTokenizer } from '../contracts/text-tokenizer.js';
import { KmError } from '../errors/km-error.js';
import type { Logger } from '../util/logger.js';
import { HashingEmbeddingGenerator } from './hashing-embedding-generator.js';

/** The package that holds km's offline embedding model. */
export const LOCAL_MODEL_PACKAGE = '@km/ai-local';

/** Options of {@link DefaultEmbeddingGenerator}. */
export interface DefaultEmbeddingGeneratorOptions {
  logger?: Logger;
  /**
   * Where to look for `@km/ai-local`: files (paths or URLs) from whose folder Node's module
   * resolution starts.
   * @default this package, the main script, the working directory
   */
  resolveFrom?: Array<string | URL>;
}

interface LocalModelModule {
  createDefaultEmbeddingGenerator(): ITextEmbeddingGenerator;
}

/**
 * The embedded default: the offline model of `@km/ai-local` (Universal Sentence Encoder lite)
 * when that package is installed and its model loads, else {@link HashingEmbeddingGenerator}
 * with a warning that says so. It decides on first use (or `ready()`), once.
 */
export class DefaultEmbeddingGenerator implements ITextEmbeddingGenerator {
  private delegate: ITextEmbeddingGenerator | undefined;
  private loading: Promise<ITextEmbeddingGenerator> | undefined;

  constructor(private readonly options: DefaultEmbeddingGeneratorOptions = {}) {}

  get maxTokens(): number {
    return this.loaded().maxTokens;
  }
  get dimensions(): number | undefined {
    return this.loaded().dimensions;
  }
  get modelName(): string | undefined {
    return this.loaded().modelName;
  }
  get maxBatchSize(): number | undefined {
    return this.loaded().maxBatchSize;
  }
  get tokenizer(): ITextTokenizer {
    return this.loaded().tokenizer;
  }

  /** The generator chosen, once `ready()` resolved. */
  get current(): ITextEmbeddingGenerator | undefined {
    return this.delegate;
  }

  async ready(): Promise<void> {
    this.loading ??= this.choose().then((g) => (this.delegate = g));
    await this.loading;
  }

  async generateEmbeddings(texts: string[], signal?: AbortSignal, options?: EmbeddingRequestOptions): Promise<Float32Array[]> {
    await this.ready();
    return this.delegate!.generateEmbeddings(texts, signal, options);
  }

  async close(): Promise<void> {
    await this.delegate?.close?.();
  }

  private loaded(): ITextEmbeddingGenerator {
    if (!this.delegate) {
      throw new KmError('not_configured', 'the default embedding generator is not loaded yet: await ready() first');
    }
    return this.delegate;
  }

  private async choose(): Promise<ITextEmbeddingGenerator> {
    const logger = this.options.logger;
    let reason: string;
    try {
      const module = await this.importLocalModel();
      if (module) {
        const generator = module.createDefaultEmbeddingGenerator();
        await generator.ready?.();
        return generator;
      }
      reason = `${LOCAL_MODEL_PACKAGE} is not installed`;
    } catch (e) {
      reason = e instanceof Error ? e.message : String(e);
    }
    logger?.warn(
      `local embedding model unavailable (${reason}); using hashing embeddings instead, which match words, not meaning. ` +
        `Install ${LOCAL_MODEL_PACKAGE} or configure an embedding generator.`,
    );
    return new HashingEmbeddingGenerator();
  }

  private async importLocalModel(): Promise<LocalModelModule | undefined> {
    const places = this.options.resolveFrom ?? [
      import.meta.url,
      ...(process.argv[1] ? [process.argv[1]] : []),
      join(process.cwd(), 'package.json'),
    ];
    for (const place of places) {
      let path: string;
      try {
        path = createRequire(place).resolve(LOCAL_MODEL_PACKAGE);
      } catch {
        continue;
      }
      return (await import(pathToFileURL(path).href)) as LocalModelModule;
    }
    return undefined;
  }
}
