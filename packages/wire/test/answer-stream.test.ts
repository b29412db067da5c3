import { describe, expect, it } from 'vitest';
import { type MemoryAnswer, readAnswerStream } from '../src/index.js';

const chunk = (streamState: MemoryAnswer['streamState'], text: string): MemoryAnswer => ({
  streamState,
  question: 'q',
  noResult: false,
  text,
  relevantSources: [],
  tokenUsage: [],
});

function stream(text: string): { body: ReadableStream<Uint8Array> } {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 7));
      offset += 7;
    },
  });
  return { body };
}

describe('readAnswerStream', () => {
  it('parses each chunk up to [DONE] and reads the body to its end', async () => {
    const events = [chunk('reset', 'Hel'), chunk('append', 'lo'), chunk('last', '')].map((c) => `data: ${JSON.stringify(c)}\n\n`);
    const { body } = stream(`${events.join('')}data: [DONE]\n\ndata: ${JSON.stringify(chunk('append', 'after'))}\n\n`);
    const chunks = await collect(readAnswerStream(body));
    expect(chunks.map((c) => [c.streamState, c.text])).toEqual([
      ['reset', 'Hel'],
      ['append', 'lo'],
      ['last', ''],
    ]);
  });

  it('yields an error chunk with its reason', async () => {
    const failed = { ...chunk('error', ''), noResult: true, noResultReason: 'the model is down' };
    const { body } = stream(`data: ${JSON.stringify(failed)}\n\ndata: [DONE]\n\n`);
    const [first] = await collect(readAnswerStream(body));
    expect(first).toMatchObject({ streamState: 'error', noResultReason: 'the model is down' });
  });
});

/** The items of an async iterable (Node 20 has no Array.fromAsync). */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
