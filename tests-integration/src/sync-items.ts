import type { SyncItem } from '@km/core';

/** The whole content of a sync item, read through its `open()`, as UTF-8 text. */
export async function readItem(item: SyncItem): Promise<string> {
  const content = await item.open();
  if (content instanceof Uint8Array) return Buffer.from(content).toString('utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}
