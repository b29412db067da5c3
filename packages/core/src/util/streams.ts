import { Readable } from 'node:stream';
import type { StorageContent } from '../contracts/content-storage.js';

/** Reads any supported content into one Buffer. */
export async function contentToBuffer(content: StorageContent | ReadableStream<Uint8Array>): Promise<Buffer> {
  if (typeof content === 'string') return Buffer.from(content, 'utf8');
  if (content instanceof Uint8Array) return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const chunks: Buffer[] = [];
  const iterable = isWebStream(content) ? Readable.fromWeb(content as never) : content;
  for await (const chunk of iterable as AsyncIterable<Uint8Array | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** A Node Readable over any supported content. */
export function contentToReadable(content: StorageContent | ReadableStream<Uint8Array>): Readable {
  if (typeof content === 'string' || content instanceof Uint8Array) return Readable.from([Buffer.from(content)]);
  if (content instanceof Readable) return content;
  if (isWebStream(content)) return Readable.fromWeb(content as never);
  return Readable.from(content as AsyncIterable<Uint8Array>);
}

function isWebStream(x: unknown): x is ReadableStream<Uint8Array> {
  return typeof (x as ReadableStream | undefined)?.getReader === 'function';
}
