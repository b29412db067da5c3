export { memoryTools, DEFAULT_TOOL_LIMIT } from './memory-tools.js';
export type {
  AskMemoryOutput,
  ImportTextOutput,
  MemoryTool,
  ToolCallOptions,
  MemoryTools,
  MemoryToolsOptions,
  ReadOnlyMemoryTools,
  SearchMemoryOutput,
} from './memory-tools.js';
export {
  askMemoryInputSchema,
  importTextInputSchema,
  searchMemoryInputSchema,
  type AskMemoryInput,
  type ImportTextInput,
  type SearchMemoryInput,
} from './tool-schemas.js';
export { retrieveContext, formatContext, DEFAULT_RAG_INSTRUCTIONS } from './retrieve-context.js';
export type { RetrieveContextOptions, RetrievedContext, RetrievedPassage } from './retrieve-context.js';
export { toMemoryCitations, sourceLabel, userTags, type MemoryCitation } from './memory-citation.js';
export { scopedFilters, type TagFilterInput } from './scope-filters.js';
export { collectionTool, collectionTools, type CollectionTool, type CollectionToolInput } from './collection-tool.js';
