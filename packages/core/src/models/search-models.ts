// The JSON shapes of answers and search results live in @km/wire (browser-safe, shared with the
// web console and @km/client); core re-exports them as its own models.
export type { Citation, CitationPartition, MemoryAnswer, SearchResult, StreamState, TokenUsage } from '@km/wire';
