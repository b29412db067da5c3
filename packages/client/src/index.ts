export { MemoryWebClient, type MemoryWebClientOptions, type WaitOptions } from './memory-web-client.js';
export { MemoryWebClientError, toClientError } from './errors.js';
export { readServerSentEvents } from './sse.js';
