import type { MemoryAnswer } from './search-models.js';
import { readServerSentEvents, SSE_DONE } from './server-sent-events.js';

/**
 * The answer chunks of `POST /ask` with `stream: true`: each event's JSON as a
 * {@link MemoryAnswer} (see its `streamState`), up to `data: [DONE]`. The rest of the body is
 * read to its end rather than cancelled (the service closes it right after `[DONE]`), so a
 * browser logs no aborted request. A chunk whose `streamState` is `error` is yielded like any
 * other: its `noResultReason` says what failed.
 *
 * ```ts
 * const res = await fetch('/ask', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Why?', stream: true }) });
 * let text = '';
 * for await (const chunk of readAnswerStream(res.body!)) text = chunk.streamState === 'reset' ? chunk.text : text + chunk.text;
 * ```
 */
export async function* readAnswerStream(body: ReadableStream<Uint8Array>): AsyncIterable<MemoryAnswer> {
  let done = false;
  for await (const data of readServerSentEvents(body)) {
    if (data === SSE_DONE) done = true;
    else if (!done) yield JSON.parse(data) as MemoryAnswer;
  }
}
