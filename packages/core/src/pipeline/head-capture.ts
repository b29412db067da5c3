import type { StorageContent } from '../contracts/content-storage.js';

/** Content to write, and its first bytes once written. */
export interface HeadCapture {
  /** What to hand to `IContentStorage.writeFile`. */
  content: StorageContent;
  /** The first bytes seen (complete once `content` was consumed). */
  head(): Buffer;
}

/**
 * Keeps the first `maxBytes` of a file while it streams to storage, so its type can be
 * detected without reading it twice or holding it whole. Bytes and strings are sliced.
 */
export function captureHead(source: Uint8Array | string | AsyncIterable<Uint8Array | string>, maxBytes: number): HeadCapture {
  if (typeof source === 'string') {
    const head = Buffer.from(source.slice(0, maxBytes)).subarray(0, maxBytes);
    return { content: source, head: () => head };
  }
  if (source instanceof Uint8Array) {
    const head = Buffer.from(source.buffer, source.byteOffset, Math.min(source.byteLength, maxBytes));
    return { content: source, head: () => head };
  }
  const chunks: Buffer[] = [];
  let kept = 0;
  async function* tee(): AsyncGenerator<Uint8Array> {
    for await (const raw of source as AsyncIterable<Uint8Array | string>) {
      const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
      if (kept < maxBytes) {
        const part = Buffer.from(chunk.subarray(0, maxBytes - kept)); // a copy: the producer may reuse its buffer
        chunks.push(part);
        kept += part.length;
      }
      yield chunk;
    }
  }
  return { content: tee(), head: () => Buffer.concat(chunks) };
}
