import type { FastifyRequest } from 'fastify';

const closed = new WeakSet<FastifyRequest>();

/**
 * True when the client of `request` hung up while it was handled (mid-upload, mid-answer): its
 * socket is gone. The error this made the handler throw is no fault of the service: it is
 * logged at info ("client closed the connection"), without a stack. Not judged from error
 * codes: an ECONNRESET may as well come from a backend.
 */
export function clientClosed(request: FastifyRequest): boolean {
  if (closed.has(request)) return true;
  const gone = request.raw.socket?.destroyed === true || request.raw.readableAborted;
  if (gone) closed.add(request);
  return gone;
}

/** True when the response of `request` was not written to the end (its client went away first), or {@link clientClosed} said so. */
export function responseCut(request: FastifyRequest, finished: boolean): boolean {
  return closed.has(request) || !finished;
}
