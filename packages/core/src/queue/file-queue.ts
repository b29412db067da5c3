import { resolve } from 'node:path';
import { InvalidInputError } from '../errors/km-error.js';
import type { Logger } from '../util/logger.js';
import { type FileMessage, FileQueueTransport } from './file-queue-transport.js';
import { TransportQueue } from './transport-queue.js';

/** Options of {@link FileQueue}. */
export interface FileQueueOptions {
  /** Folder holding one sub-folder per queue. Every client of a queue must use the same one. */
  directory: string;
  /** Deliveries of a message before it moves to the poison queue. @default 5 */
  maxAttempts?: number;
  /**
   * Delay before a transient failure is retried, in ms, doubled each attempt. No jitter: the
   * consumers of a folder share one machine, and a retry never runs before this delay. @default 1000
   */
  retryDelayMs?: number;
  /** Longest retry delay, in ms. @default 60000 */
  maxRetryDelayMs?: number;
  /**
   * How long a claimed message stays invisible to other consumers, in ms. The claim is renewed
   * every third of this while its handler runs, so only a dead or stalled consumer loses it; the
   * message then goes back to the queue. @default 60000
   */
  visibilityTimeoutMs?: number;
  /** How often the folder is checked when no change notification arrives, in ms. @default 250 */
  pollIntervalMs?: number;
  /** Messages handled at once by this client. @default 1 */
  concurrency?: number;
  /** fsync each message before it becomes visible, so it survives a power cut. @default true */
  durable?: boolean;
  /** Told about failed receives, settles and renewals. @default process warnings for errors */
  logger?: Logger;
}

const processWarnings: Logger = {
  debug() {},
  info() {},
  warn() {},
  error: (message, fields) => process.emitWarning(`[km] ${message} ${JSON.stringify(fields ?? {})}`),
};

/**
 * A durable queue in a folder, the embedded default of the service: survives restarts and
 * `kill -9`, and is shared by every process that uses the same folder on one machine.
 *
 * - `{directory}/{name}/ready/`: messages waiting, named so that a sorted listing is FIFO;
 *   a retried message carries the time before which it must not run.
 * - Claim: `rename` from `ready/` to `claimed/` is atomic, so exactly one consumer wins a
 *   message. The claimed file's modification time is its lease expiry, renewed while the
 *   handler runs; an expired claim, or one whose process died (the claim names its pid), is
 *   put back by any client (and poisoned unread once delivered more than `maxAttempts` times).
 * - `{directory}/{name}-poison/ready/`: messages that failed fatally or too often.
 *
 * ```ts
 * const queue = new FileQueue({ directory: './km-data/queues' });
 * queue.onDequeue(async (message) => (await handle(message), 'ok'));
 * await queue.connect('extract', { dequeue: true });
 * await queue.enqueue('{"index":"default","document_id":"doc1"}');
 * ```
 */
export class FileQueue extends TransportQueue<FileMessage> {
  constructor(options: FileQueueOptions) {
    if (!options || typeof options.directory !== 'string' || options.directory.length === 0) {
      throw new InvalidInputError('invalid_argument', 'FileQueue needs a directory', { connector: 'file-queue' });
    }
    const transport = new FileQueueTransport({
      root: resolve(options.directory),
      visibilityTimeoutMs: Math.max(100, options.visibilityTimeoutMs ?? 60_000),
      pollIntervalMs: Math.max(10, options.pollIntervalMs ?? 250),
      durable: options.durable ?? true,
    });
    super(transport, { logger: processWarnings, ...options });
  }
}
