import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MemoryAnswer } from '@km/core';
import { SSE_DONE } from '@km/wire';
import { toProblem } from './problem-details.js';

/** The end of a KM answer stream (@km/wire's constant, which the readers check). */
export { SSE_DONE };

/**
 * The server-sent events of `POST /ask` with `stream: true`, as Kernel Memory writes them: each
 * answer chunk as `data: {json}`, then `data: [DONE]`; a failure mid-stream becomes an `error`
 * chunk. The first chunk is awaited before the headers, so bad input still gets a 4xx problem.
 */
export async function streamAnswer(request: FastifyRequest, reply: FastifyReply, answers: AsyncIterable<MemoryAnswer>): Promise<void> {
  const iterator = answers[Symbol.asyncIterator]();
  // The first chunk is awaited before the headers, so bad input still gets a 4xx problem.
  const first = await iterator.next();
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  const send = (data: string) => res.write(`data: ${data}\n\n`);
  try {
    for (let step = first; !step.done; step = await iterator.next()) {
      if (res.destroyed) break;
      send(JSON.stringify(step.value));
    }
  } catch (error) {
    // The client hung up: nothing to tell it, and no error (the work was aborted on purpose).
    if (res.destroyed) return;
    const { body, internal } = toProblem(error);
    if (internal) request.log.error({ err: error }, 'streamed answer failed');
    send(
      JSON.stringify({
        streamState: 'error',
        question: '',
        noResult: true,
        noResultReason: body.detail,
        text: '',
        relevantSources: [],
        tokenUsage: [],
      } satisfies MemoryAnswer),
    );
  } finally {
    if (!res.destroyed) {
      send(SSE_DONE);
      res.end();
    }
    await iterator.return?.();
    // A hijacked reply skips the onResponse hook: log the request here.
    request.log.info(
      { method: request.method, url: request.url, status: 200, ms: Math.round(reply.elapsedTime), streamed: true },
      'request',
    );
  }
}
