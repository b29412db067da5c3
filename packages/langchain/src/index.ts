export { KernelMemoryRetriever, DEFAULT_RETRIEVER_LIMIT, type KernelMemoryRetrieverInput } from './kernel-memory-retriever.js';
export { KernelMemoryVectorStoreReader, type KernelMemoryVectorStoreReaderInput } from './kernel-memory-vector-store-reader.js';
export { KernelMemoryEmbeddings } from './kernel-memory-embeddings.js';
export { partitionDocuments, type KernelMemoryDocument, type KernelMemoryDocumentMetadata } from './partition-documents.js';
export { toFilterList, andFilters, type KernelMemoryFilter } from './kernel-memory-filter.js';
export { UnsupportedOperationError } from './unsupported-operation-error.js';
export { collectionTool } from './collection-tool.js';
