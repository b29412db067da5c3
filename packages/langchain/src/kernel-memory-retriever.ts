import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { IKernelMemory, MemoryFilter } from '@km/core';
import { toFilterList, type KernelMemoryFilter } from './kernel-memory-filter.js';
import { partitionDocuments, type KernelMemoryDocument, type KernelMemoryDocumentMetadata } from './partition-documents.js';

/** Options of {@link KernelMemoryRetriever}. */
export interface KernelMemoryRetrieverInput extends BaseRetrieverInput {
  /** The memory to search: `MemoryServerless`, `MemoryWebClient` or any other `IKernelMemory`. */
  memory: IKernelMemory;
  /** Index to search. @default the memory's default index (`default`) */
  index?: string;
  /** Only partitions of documents matching this filter. @default none */
  filters?: KernelMemoryFilter;
  /** Keep partitions at least this relevant (cosine similarity). @default the memory's own default */
  minRelevance?: number;
  /** Most documents returned per query. @default 4 (LangChain's usual k) */
  limit?: number;
}

/** Default of {@link KernelMemoryRetrieverInput.limit}. */
export const DEFAULT_RETRIEVER_LIMIT = 4;

/**
 * A LangChain retriever over a km memory: each matching partition becomes a Document whose
 * `pageContent` is the partition's text and whose metadata says where it comes from
 * (documentId, fileName, partitionNumber, relevance, page or section, tags, sourceUrl), most
 * relevant first.
 *
 * ```ts
 * const retriever = new KernelMemoryRetriever({ memory, index: 'handbook', limit: 3 });
 * const docs = await retriever.invoke('How many vacation days do new employees get?');
 * console.log(docs[0].pageContent, docs[0].metadata.fileName);
 * ```
 */
export class KernelMemoryRetriever extends BaseRetriever<KernelMemoryDocumentMetadata> {
  static override lc_name(): string {
    return 'KernelMemoryRetriever';
  }

  override lc_namespace = ['langchain', 'retrievers', 'kernel_memory'];

  readonly memory: IKernelMemory;
  readonly index: string | undefined;
  readonly filters: readonly MemoryFilter[];
  readonly minRelevance: number | undefined;
  readonly limit: number;

  constructor(fields: KernelMemoryRetrieverInput) {
    const { memory, index, filters, minRelevance, limit, ...base } = fields;
    super(base);
    this.memory = memory;
    this.index = index;
    this.filters = toFilterList(filters);
    this.minRelevance = minRelevance;
    this.limit = limit ?? DEFAULT_RETRIEVER_LIMIT;
    if (!Number.isInteger(this.limit) || this.limit < 1) {
      throw new RangeError(`[km] [langchain] limit must be a positive integer, got ${this.limit}`);
    }
  }

  override async _getRelevantDocuments(query: string): Promise<KernelMemoryDocument[]> {
    const result = await this.memory.search(query, {
      ...(this.index !== undefined ? { index: this.index } : {}),
      ...(this.filters.length > 0 ? { filters: this.filters } : {}),
      ...(this.minRelevance !== undefined ? { minRelevance: this.minRelevance } : {}),
      limit: this.limit,
    });
    return partitionDocuments(result)
      .slice(0, this.limit)
      .map(([document]) => document);
  }
}
