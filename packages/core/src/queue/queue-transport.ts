import type { BackoffJitter } from '../retry/backoff-policy.js';

/** A message as a transport hands it to the consumer engine. */
export interface TransportMessage {
  /** The message text. */
  readonly body: string;
  /** Deliveries of this message so far, this one included, as the backend counts them across crashes. */
  readonly attempt: number;
}

/** What a transport can do, read by the engine ({@link TransportQueue}); every flag is optional. */
export interface QueueTransportCapabilities {
  /** How long a received message stays held, in ms; the engine renews it every third of this while its handler runs. Absent: held until settled or until the connection ends. */
  leaseMs?: number;
  /** Longest wait between two receives of an idle queue, in ms (polling starts at 50 ms and doubles). Absent: the transport calls `wake` when a message arrives, and the engine never polls. */
  pollIntervalMs?: number;
  /** `close()` hands back every message still held (a broker connection does). @default false: the engine releases each one first */
  releasesOnClose?: boolean;
  /** How retry delays are spread (see `BackoffPolicy`); `none` where each distinct delay costs something. @default 'full' */
  retryJitter?: BackoffJitter;
}

/** Defaults of the consumer options (`QueueConsumerOptions`) on one transport; each one absent is core's. */
export interface QueueConsumerDefaults {
  /** @default 5 */
  maxAttempts?: number;
  /** In ms. @default 1000 */
  retryDelayMs?: number;
  /** In ms. @default 60000 */
  maxRetryDelayMs?: number;
}

/** What the engine passes to {@link QueueTransport.open}. */
export interface TransportOpenOptions {
  /** Take messages from the queue (`receive` will be called). */
  consume: boolean;
  /** Messages the engine holds at once at most (a broker's prefetch). */
  prefetch: number;
  /** Tells the engine that messages may be ready: call it on every arrival when there is no `pollIntervalMs`. */
  wake: () => void;
}

/**
 * A queue backend, reduced to translation: the engine ({@link TransportQueue}) owns handlers,
 * concurrency, attempts, backoff, poisoning, lease renewal, close and late results. Every
 * method may throw a `KmError` (with `connector`); a settle that throws is followed by
 * `release`, a receive that throws by a retry after a backoff.
 */
export interface QueueTransport<M extends TransportMessage = TransportMessage> {
  /** `connector` for errors, `className` for messages, `label` for logs (`'Azure queue'`). */
  readonly names: { readonly connector: string; readonly className: string; readonly label: string };
  readonly capabilities: QueueTransportCapabilities;
  /** @default core's: 5 attempts, 1000 ms first retry delay, 60000 ms longest */
  readonly defaults?: QueueConsumerDefaults;
  /** The backend's name of the queue once opened, when it differs from km's (a prefix, a mapping). */
  readonly queueName?: string | undefined;
  /** Checks the name, creates the queue and its poison queue if missing, and connects. Called again only after it threw. */
  open(name: string, options: TransportOpenOptions): Promise<void>;
  /** Adds a message; resolves once the backend has it. */
  publish(body: string): Promise<void>;
  /** Up to `max` messages ready now (held by this client from then on), `[]` when there are none. */
  receive(max: number): Promise<M[]>;
  /** The message is done: remove it. */
  ack(message: M): Promise<void>;
  /** Delivers the message again after `delayMs` ms (counting this delivery as an attempt). */
  retry(message: M, delayMs: number): Promise<void>;
  /** Moves the message to the poison queue; `reason` is for logs. */
  poison(message: M, reason: string): Promise<void>;
  /** Extends the message's lease by `leaseMs`; only with `capabilities.leaseMs`; never called twice at once for one message. */
  renew?(message: M): Promise<void>;
  /** Hands the message back at once, for any consumer. */
  release(message: M): Promise<void>;
  /** Stops receiving and frees connections; messages it still buffers go back. Called once, last. */
  close(): Promise<void>;
}
