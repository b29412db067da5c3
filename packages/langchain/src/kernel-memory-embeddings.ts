import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { UnsupportedOperationError } from './unsupported-operation-error.js';

const HINT = 'km embeds text inside the memory with its own embedding generator; search with text (similaritySearch) instead';

/**
 * The `embeddings` of {@link KernelMemoryVectorStoreReader}. LangChain's VectorStore must hold
 * one, but a km memory embeds queries and documents itself, with the generator it was built
 * with, and gives no access to it: both methods throw {@link UnsupportedOperationError}.
 */
export class KernelMemoryEmbeddings implements EmbeddingsInterface {
  async embedDocuments(_documents: string[]): Promise<number[][]> {
    throw new UnsupportedOperationError('embedDocuments', HINT);
  }

  async embedQuery(_document: string): Promise<number[]> {
    throw new UnsupportedOperationError('embedQuery', HINT);
  }
}
