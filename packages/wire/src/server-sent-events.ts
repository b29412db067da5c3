/** The `data:` payload that ends an answer stream of `POST /ask` (Kernel Memory's convention). */
export const SSE_DONE = '[DONE]';

/**
 * Reads the `data:` payloads of a server-sent event stream (a fetch `Response.body`), one per
 * event, using only web APIs, so it runs in browsers and Node alike. As the SSE spec says:
 * lines end with LF, CRLF or CR (also when a chunk boundary splits them); several `data:` lines
 * of one event are joined with newlines; one space after the colon is dropped; comment lines
 * (`: keep-alive`) and the other fields (`event:`, `id:`, `retry:`) are skipped; an event
 * without `data` is not yielded. Unlike the spec, an event the stream ends in the middle of
 * (no blank line after it) is still yielded. The body is released and cancelled once the
 * iteration ends, however it ends.
 *
 * ```ts
 * const res = await fetch('/ask', { method: 'POST', body: JSON.stringify({ question: 'Why?', stream: true }) });
 * for await (const data of readServerSentEvents(res.body!)) if (data !== SSE_DONE) console.log(JSON.parse(data));
 * ```
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const lineEnd = /[\r\n]/g;
  let buffer = '';
  // Where the search for the next line end resumes in `buffer` (the part before has none).
  let scanned = 0;
  let data: string[] | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let lineStart = 0;
      lineEnd.lastIndex = scanned;
      let match: RegExpExecArray | null;
      scanned = -1;
      while ((match = lineEnd.exec(buffer)) !== null) {
        const at = match.index;
        // A CR at the end of what has come may be the first half of a CRLF: wait for the next chunk.
        if (buffer[at] === '\r' && at + 1 === buffer.length && !done) {
          scanned = at;
          break;
        }
        const line = buffer.slice(lineStart, at);
        lineStart = buffer[at] === '\r' && buffer[at + 1] === '\n' ? at + 2 : at + 1;
        lineEnd.lastIndex = lineStart;
        if (line === '') {
          if (data !== undefined) yield data.join('\n');
          data = undefined;
        } else {
          const value = dataOf(line);
          if (value !== undefined) (data ??= []).push(value);
        }
      }
      buffer = buffer.slice(lineStart);
      scanned = scanned < 0 ? buffer.length : scanned - lineStart;
      if (done) {
        const value = buffer === '' ? undefined : dataOf(buffer);
        if (value !== undefined) (data ??= []).push(value);
        if (data !== undefined) yield data.join('\n');
        return;
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/** The value of a `data` field line; undefined for comments and other fields. */
function dataOf(line: string): string | undefined {
  if (line.startsWith(':')) return undefined;
  const colon = line.indexOf(':');
  const field = colon < 0 ? line : line.slice(0, colon);
  if (field !== 'data') return undefined;
  if (colon < 0) return '';
  return line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
}
