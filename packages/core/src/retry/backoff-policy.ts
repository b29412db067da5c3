import { InvalidInputError } from '../errors/km-error.js';

/** How a {@link BackoffPolicy} spreads its delays. */
export type BackoffJitter = 'full' | 'equal' | 'none';

/** Options of a {@link BackoffPolicy}; every retrying part of km takes these. */
export interface BackoffOptions {
  /** Ceiling of the first retry's delay, in ms; it doubles with each retry. @default 1000 */
  initialDelayMs?: number;
  /** Longest delay, in ms, a server's Retry-After included. @default 60000 */
  maxDelayMs?: number;
  /**
   * How much of each delay is random: `full` draws it from [0, ceiling] (spreads a crowd of
   * clients best), `equal` from [ceiling / 2, ceiling] (keeps a minimum wait), `none` waits the
   * ceiling itself (fixed tiers, as RabbitMQ's delay queues need). @default 'full'
   */
  jitter?: BackoffJitter;
}

/**
 * The one retry delay of km: exponential (`initialDelayMs × 2^(retry−1)`), capped at
 * `maxDelayMs`, with jitter; a server's Retry-After replaces the computed delay (capped too).
 * Orchestrators, queues, the web fetcher and the AI providers all use it.
 *
 * ```ts
 * const backoff = new BackoffPolicy({ initialDelayMs: 500, maxDelayMs: 30_000 });
 * backoff.delayMs(1); // in [0, 500]
 * backoff.delayMs(3, 2_000); // 2000: the server asked for two seconds
 * ```
 */
export class BackoffPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitter: BackoffJitter;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}, random: () => number = Math.random) {
    this.initialDelayMs = nonNegative(options.initialDelayMs ?? 1000, 'initialDelayMs');
    this.maxDelayMs = Math.max(this.initialDelayMs, nonNegative(options.maxDelayMs ?? 60_000, 'maxDelayMs'));
    this.jitter = options.jitter ?? 'full';
    if (!['full', 'equal', 'none'].includes(this.jitter)) {
      throw new InvalidInputError('invalid_argument', `jitter must be 'full', 'equal' or 'none', got ${JSON.stringify(this.jitter)}`);
    }
    this.random = random;
  }

  /** The policy with some options changed. */
  with(options: BackoffOptions): BackoffPolicy {
    return new BackoffPolicy(
      { initialDelayMs: this.initialDelayMs, maxDelayMs: this.maxDelayMs, jitter: this.jitter, ...options },
      this.random,
    );
  }

  /** The largest delay before retry number `retry` (1 = the first retry): no jitter applied. */
  ceilingMs(retry: number): number {
    const exponent = Math.min(Math.max(0, Math.floor(retry) - 1), 52);
    return Math.min(this.maxDelayMs, Math.round(this.initialDelayMs * 2 ** exponent));
  }

  /**
   * The delay before retry number `retry` (1 = the first retry), in whole ms. When the server
   * said how long to wait (`retryAfterMs`), that is the delay, capped at `maxDelayMs`.
   */
  delayMs(retry: number, retryAfterMs?: number): number {
    if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs)) return Math.min(this.maxDelayMs, Math.max(0, Math.ceil(retryAfterMs)));
    const ceiling = this.ceilingMs(retry);
    if (this.jitter === 'none') return ceiling;
    const floor = this.jitter === 'equal' ? ceiling / 2 : 0;
    return Math.round(floor + this.random() * (ceiling - floor));
  }
}

function nonNegative(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidInputError('invalid_argument', `${name} must be a finite number >= 0, got ${String(value)}`);
  }
  return value;
}
