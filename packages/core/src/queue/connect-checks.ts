import type { QueueConnectOptions } from '../contracts/queue.js';
import { InvalidInputError, KmError } from '../errors/km-error.js';

/** What a queue client knows about itself when `connect` is called. */
export interface QueueClientState {
  closed: boolean;
  /** The queue it is connected to already, if any. */
  connectedTo: string | undefined;
  hasHandler: boolean;
}

/**
 * The checks a broker-backed queue client makes before it connects: it is not closed, not
 * connected yet (one client serves one queue), and has a handler when it is to dequeue.
 * Throws a typed `invalid_argument` error naming the problem.
 */
export function checkQueueConnect(
  client: QueueClientState,
  options: QueueConnectOptions,
  names: { connector: string; className: string },
): void {
  const { connector, className } = names;
  if (client.closed) throw new KmError('invalid_argument', `this ${className} is closed`, { connector });
  if (client.connectedTo !== undefined)
    throw new KmError('invalid_argument', `already connected to "${client.connectedTo}"`, { connector });
  if (options.dequeue && !client.hasHandler) {
    throw new InvalidInputError('invalid_argument', 'call onDequeue before connect({ dequeue: true })', { connector });
  }
}
