import { KmError } from '@km/core';
import { isMissingCollection, translateQdrantError } from '../qdrant-errors.js';

/** A write to a collection that does not exist. */
export function collectionNotFound(collection: string, cause?: unknown): KmError {
  return new KmError('collection_not_found', `collection "${collection}" does not exist`, { connector: 'qdrant', cause });
}

/**
 * Qdrant client errors of a typed collection → km errors: a missing collection is
 * `collection_not_found`, the rest as the memory DB translates them (rate limits, transient
 * failures, refused keys, vector sizes).
 */
export function translateQdrantVectorError(error: unknown, collection: string): unknown {
  if (error instanceof KmError) return error;
  if (isMissingCollection(error)) return collectionNotFound(collection, error);
  return translateQdrantError(error, collection);
}
