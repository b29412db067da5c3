export { createMemoryMcpServer, READ_TOOLS, SYNC_TOOL, WRITE_TOOLS, type MemoryMcpServerOptions } from './memory-mcp-server.js';
export type { SyncToolOptions } from './tools/sync-tool.js';
export { runStdioServer, type StdioServer, type StdioServerOptions } from './stdio-server.js';
export { handleStreamableHttp, methodNotAllowed, METHOD_NOT_ALLOWED_BODY, type StreamableHttpOptions } from './streamable-http.js';
export { memoryFiltersOf, tagCollectionOf, type FilterArgument } from './filters.js';
export { toolErrorOf, type ToolErrorLogger } from './tool-errors.js';
export { checkCollectionToolNames, collectionSearchOutput, registerCollectionSearchTools } from './tools/collection-search-tools.js';
export { zodOfJsonSchema } from './json-schema-zod.js';
