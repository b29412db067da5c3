export { HnswGraph, type HnswOptions, type HnswQuery, type HnswSearchOptions, type HnswSpace, queryOfScore } from './hnsw-graph.js';
export { decodeHnswGraph, encodeHnswGraph, type DecodedHnswGraph, type HnswNodeKey } from './hnsw-file.js';
