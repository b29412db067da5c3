import { describe, expect, it } from 'vitest';
import { readServerSentEvents, SSE_DONE } from '../src/index.js';

/** A body that delivers `chunks` one read at a time, and records whether it was cancelled. */
function body(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> & { cancelled: boolean } {
  const encoder = new TextEncoder();
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const state = Object.assign(stream, { cancelled: false });
  return state;
}

async function read(chunks: Array<string | Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readServerSentEvents(body(chunks))) out.push(data);
  return out;
}

/** Every way of cutting `text` in two. */
function splits(text: string): Array<[string, string]> {
  return Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);
}

describe('readServerSentEvents', () => {
  it('yields the data of each event', async () => {
    expect(await read(['data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n'])).toEqual(['{"a":1}', '{"b":2}', SSE_DONE]);
  });

  it('gives the same events wherever a chunk boundary falls, also inside a line or a CRLF', async () => {
    const text = 'data: one\r\n\r\ndata: two\n: ping\ndata: three\r\rdata: [DONE]\n\n';
    for (const [a, b] of splits(text)) expect(await read([a, b]), JSON.stringify([a, b])).toEqual(['one', 'two\nthree', '[DONE]']);
    expect(await read([...text])).toEqual(['one', 'two\nthree', '[DONE]']);
  });

  it('keeps a multi-byte character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: é🙂\n\n');
    for (let i = 0; i <= bytes.length; i++) expect(await read([bytes.slice(0, i), bytes.slice(i)])).toEqual(['é🙂']);
  });

  it('joins the data lines of one event with newlines', async () => {
    expect(await read(['data: first\ndata: second\ndata:third\n\n'])).toEqual(['first\nsecond\nthird']);
  });

  it('reads LF, CRLF and CR line ends alike', async () => {
    for (const eol of ['\n', '\r\n', '\r'])
      expect(await read([`data: a${eol}data: b${eol}${eol}data: c${eol}${eol}`])).toEqual(['a\nb', 'c']);
  });

  it('skips comments, keep-alives and other fields, and events without data', async () => {
    const text = ': keep-alive\n\nevent: answer\nid: 7\nretry: 1000\ndata: x\n\n:\n\nevent: ping\n\n';
    expect(await read([text])).toEqual(['x']);
  });

  it('drops one space after the colon only, and reads `data` without a colon as empty', async () => {
    expect(await read(['data:  two spaces\n\ndata\n\ndata:\n\n'])).toEqual([' two spaces', '', '']);
  });

  it('yields an event the stream ends in the middle of', async () => {
    expect(await read(['data: a\n\ndata: b'])).toEqual(['a', 'b']);
    expect(await read(['data: a\ndata: b\n'])).toEqual(['a\nb']);
    expect(await read(['data: a\r'])).toEqual(['a']);
    expect(await read([])).toEqual([]);
  });

  it('cancels the body when the reader stops early', async () => {
    const stream = body(['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n']);
    for await (const data of readServerSentEvents(stream)) if (data === '1') break;
    expect(stream.cancelled).toBe(true);
    expect(stream.locked).toBe(false);
  });

  it('reads a fetch Response body', async () => {
    const res = new Response('data: {"text":"hi"}\n\ndata: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } });
    expect(await collect(readServerSentEvents(res.body!))).toEqual(['{"text":"hi"}', '[DONE]']);
  });
});

/** The items of an async iterable (Node 20 has no Array.fromAsync). */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
