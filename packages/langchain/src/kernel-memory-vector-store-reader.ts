import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { DocumentInterface } from '@langchain/core/documents';
import { VectorStore } from '@langchain/core/vectorstores';
import type { IKernelMemory, MemoryFilter } from '@km/core';
import { KernelMemoryEmbeddings } from './kernel-memory-embeddings.js';
import { andFilters, toFilterList, type KernelMemoryFilter } from './kernel-memory-filter.js';
import { partitionDocuments, type KernelMemoryDocument } from './partition-documents.js';
import { UnsupportedOperationError } from './unsupported-operation-error.js';

/** Options of {@link KernelMemoryVectorStoreReader}. */
export interface KernelMemoryVectorStoreReaderInput {
  /** The memory to read: `MemoryServerless`, `MemoryWebClient` or any other `IKernelMemory`. */
  memory: IKernelMemory;
  /** Index to search. @default the memory's default index (`default`) */
  index?: string;
  /** Every search sees only documents matching this filter; a call's own filter narrows it further. @default none */
  filters?: KernelMemoryFilter;
  /** Keep partitions at least this relevant (cosine similarity). @default the memory's own default */
  minRelevance?: number;
}

const WRITE_HINT =
  'KernelMemoryVectorStoreReader only reads; write through the memory (importText, importDocument, deleteDocument) so that km chunks and embeds the text';

/**
 * LangChain's VectorStore read API over a km memory: `similaritySearch`,
 * `similaritySearchWithScore` (score = cosine relevance) and `asRetriever()`, with km filters
 * (`MemoryFilter`, a list of them, or the wire form `{ key: ['value'] }`).
 *
 * km embeds and stores text itself, so the members that write through the store
 * (`addDocuments`, `addVectors`, `delete`), search by a caller's vector
 * (`similaritySearchVectorWithScore`) or use `embeddings` throw {@link UnsupportedOperationError}.
 *
 * ```ts
 * const store = new KernelMemoryVectorStoreReader({ memory, index: 'handbook' });
 * const hits = await store.similaritySearchWithScore('vacation days', 3, MemoryFilters.byTag('team', 'hr'));
 * const retriever = store.asRetriever({ k: 3 });
 * ```
 */
export class KernelMemoryVectorStoreReader extends VectorStore {
  declare FilterType: KernelMemoryFilter;

  readonly memory: IKernelMemory;
  readonly index: string | undefined;
  readonly filters: readonly MemoryFilter[];
  readonly minRelevance: number | undefined;

  static override lc_name(): string {
    return 'KernelMemoryVectorStoreReader';
  }

  constructor(fields: KernelMemoryVectorStoreReaderInput) {
    super(new KernelMemoryEmbeddings(), {});
    this.memory = fields.memory;
    this.index = fields.index;
    this.filters = toFilterList(fields.filters);
    this.minRelevance = fields.minRelevance;
  }

  override _vectorstoreType(): string {
    return 'kernel_memory';
  }

  /** The `k` partitions most relevant to `query`, most relevant first. */
  override async similaritySearch(
    query: string,
    k = 4,
    filter?: this['FilterType'],
    _callbacks?: Callbacks,
  ): Promise<KernelMemoryDocument[]> {
    return (await this.similaritySearchWithScore(query, k, filter)).map(([document]) => document);
  }

  /** The `k` partitions most relevant to `query` with their relevance (cosine similarity), most relevant first. */
  override async similaritySearchWithScore(
    query: string,
    k = 4,
    filter?: this['FilterType'],
    _callbacks?: Callbacks,
  ): Promise<Array<[KernelMemoryDocument, number]>> {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`[km] [langchain] k must be a positive integer, got ${k}`);
    const filters = andFilters(this.filters, toFilterList(filter));
    const result = await this.memory.search(query, {
      ...(this.index !== undefined ? { index: this.index } : {}),
      ...(filters.length > 0 ? { filters } : {}),
      ...(this.minRelevance !== undefined ? { minRelevance: this.minRelevance } : {}),
      limit: k,
    });
    return partitionDocuments(result).slice(0, k);
  }

  /** Throws {@link UnsupportedOperationError}: km searches by text and embeds the query itself. */
  override async similaritySearchVectorWithScore(
    _query: number[],
    _k: number,
    _filter?: this['FilterType'],
  ): Promise<[DocumentInterface, number][]> {
    throw new UnsupportedOperationError('similaritySearchVectorWithScore', 'km embeds queries itself; search with text (similaritySearch)');
  }

  /** Throws {@link UnsupportedOperationError}: the store only reads. */
  override async addVectors(_vectors: number[][], _documents: DocumentInterface[]): Promise<string[]> {
    throw new UnsupportedOperationError('addVectors', WRITE_HINT);
  }

  /** Throws {@link UnsupportedOperationError}: the store only reads. */
  override async addDocuments(_documents: DocumentInterface[]): Promise<string[]> {
    throw new UnsupportedOperationError('addDocuments', WRITE_HINT);
  }

  /** Throws {@link UnsupportedOperationError}: the store only reads. */
  override async delete(_params?: Record<string, unknown>): Promise<void> {
    throw new UnsupportedOperationError('delete', WRITE_HINT);
  }
}
