import { KmError } from '@km/core';

/**
 * Thrown by the members of LangChain's VectorStore contract that a km memory cannot honour:
 * writing caller-made vectors or documents through the store, deleting through it, and
 * anything that needs the store's own embeddings (km embeds queries inside the memory).
 * `operation` names the member. Its `code` is `unsupported_operation`.
 *
 * ```ts
 * try { await store.addDocuments(docs); }
 * catch (e) { if (e instanceof UnsupportedOperationError) await memory.importText(docs[0].pageContent); }
 * ```
 */
export class UnsupportedOperationError extends KmError {
  /** The member that was called, e.g. `addDocuments`. */
  readonly operation: string;

  constructor(operation: string, hint: string) {
    super('unsupported_operation', `${operation} is not supported: ${hint}`, { connector: 'langchain' });
    this.name = 'UnsupportedOperationError';
    this.operation = operation;
  }
}
