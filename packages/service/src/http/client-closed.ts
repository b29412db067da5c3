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

/** True when {@link clientClosed} found the client of `request` gone (the socket state alone is not read: it may close after a complete response). */
export function foundClosed(request: FastifyRequest): boolean {
  return closed.has(request);
}
