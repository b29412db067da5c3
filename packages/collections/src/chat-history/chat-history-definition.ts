import { defineRecord, type DistanceFunction, type ITextEmbeddingGenerator, type RecordDefinition, type VectorValue } from '@km/core';

/** A chat message as a chat-history collection stores it (see {@link chatHistoryDefinition}). */
export interface ChatMessageRecord {
  messageId: string;
  sessionId: string;
  role: string;
  content: string;
  name?: string | null;
  createdAt: Date;
  sequence: number;
  contentEmbedding?: VectorValue | number[] | null;
}

/** Options of {@link chatHistoryDefinition}. */
export interface ChatHistoryDefinitionOptions {
  /** Dimensions of the content embeddings (those of the embedding generator). */
  dimensions: number;
  /** @default 'cosine' */
  distance?: DistanceFunction;
  /** Embeds message contents and recall queries; the collection or the store may give one instead. */
  embeddingGenerator?: ITextEmbeddingGenerator;
}

/**
 * The record definition of chat messages, for a collection that a {@link ChatHistory} keeps:
 * key `messageId`; `sessionId`, `role`, `createdAt` and `sequence` filterable; `content`
 * full-text; an optional `name`; the vector `contentEmbedding`, embedded from `content`.
 * Messages are embedded when added, so the collection needs an embedding generator (from
 * here, the collection or the store; `add` throws `not_configured` without one).
 *
 * ```ts
 * const Messages = chatHistoryDefinition({ dimensions: 384, embeddingGenerator });
 * const messages = store.getCollection('chat', Messages);
 * await messages.ensureExists();
 * const history = new ChatHistory(messages);
 * ```
 */
export function chatHistoryDefinition(options: ChatHistoryDefinitionOptions): RecordDefinition<ChatMessageRecord> {
  const { dimensions, distance, embeddingGenerator } = options;
  const definition = defineRecord({
    key: 'messageId',
    data: {
      sessionId: { type: 'string', filterable: true },
      role: { type: 'string', filterable: true },
      content: { type: 'string', fullText: true },
      name: { type: 'string', optional: true },
      createdAt: { type: 'date', filterable: true },
      sequence: { type: 'integer', filterable: true },
    },
    vectors: {
      contentEmbedding: { dimensions, embed: 'content', optional: true, ...(distance === undefined ? {} : { distance }) },
    },
    ...(embeddingGenerator === undefined ? {} : { embeddingGenerator }),
  });
  return definition as RecordDefinition<ChatMessageRecord>;
}
