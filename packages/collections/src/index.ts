// @km/collections: typed vector-store collections (your own records in any store that has a
// `VectorStoreDriver`), chat history and search-as-tool over them. Record definitions
// (`defineRecord`) and the filter language are `@km/core`'s; drivers are `@km/core/connector`'s.

// Stores and collections
export { VectorStore, type VectorStoreCapabilities, type VectorStoreOptions } from './vector-store.js';
export { VectorStoreCollection } from './vector-store-collection.js';
export { SimpleVectorStore, type SimpleVectorStoreOptions } from './simple-vector-store.js';
export type {
  CollectionOptions,
  GetRecordOptions,
  IVectorStore,
  IVectorStoreCollection,
  RecordQueryOptions,
  VectorSearchOptions,
  LexicalSearchOptions,
  VectorSearchResult,
} from './vector-store-types.js';

// Chat history
export {
  ChatHistory,
  type ChatRecallOptions,
  type ChatRecallResult,
  DEFAULT_RECALL_TOP,
  DEFAULT_RECENT_LIMIT,
  MAX_RECENT_LIMIT,
  type RecentMessagesOptions,
} from './chat-history/chat-history.js';
export {
  type ChatHistoryDefinitionOptions,
  type ChatMessageRecord,
  chatHistoryDefinition,
} from './chat-history/chat-history-definition.js';
export {
  CHAT_ROLES,
  type ChatMessage,
  type ChatMessageInput,
  type ChatRole,
  checkChatMessageInput,
  checkChatRole,
  checkSessionId,
  MAX_SESSION_ID_BYTES,
} from './chat-history/chat-message.js';

// Search as a tool for agents
export {
  type CollectionSearchTool,
  type CollectionSearchToolOptions,
  type CollectionSearchToolOutput,
  type CollectionSearchToolResult,
  collectionSearchTool,
  DEFAULT_TOOL_MAX_TOP,
  DEFAULT_TOOL_TOP,
} from './agent-tools/collection-search-tool.js';
export type { JsonSchema } from './agent-tools/search-tool-schema.js';
export type { JsonValue } from './agent-tools/json-record.js';
