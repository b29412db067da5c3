import { describe, it } from 'vitest';
import { QUEUE_CASES } from './queue-cases.js';
import { QUEUE_SUITE_SETTINGS, runQueueCase } from './queue-fixture.js';
import type { QueueSuiteOptions } from './queue-suite-options.js';

export type { QueueSuiteOptions, QueueSuiteSettings } from './queue-suite-options.js';

/**
 * The queue conformance suite: order for one consumer, acknowledgement, leases (an acked message
 * is gone, a crashed consumer's comes back, a long handler keeps its own), retries and their
 * delay, fatal and exhausted messages to the poison queue, and messages that survive a consumer
 * disconnecting before acknowledging.
 *
 * ```ts
 * describeQueue('rabbitmq', { create: (s) => new RabbitMqQueue({ url, ...s }) });
 * ```
 */
export function describeQueue(name: string, options: QueueSuiteOptions): void {
  describe(`IQueue conformance: ${name}`, () => {
    if (options.skip) {
      it.skip(`skipped: ${options.skip}`, () => undefined);
      return;
    }
    const timeoutMs = options.timeoutMs ?? 10_000;
    const leaseMs = options.leaseMs ?? QUEUE_SUITE_SETTINGS.visibilityTimeoutMs;
    for (const [rule, { run, timeoutMs: limit }] of Object.entries(QUEUE_CASES)) {
      it(rule, { timeout: limit?.(timeoutMs, leaseMs) ?? timeoutMs + 10_000, retry: options.retry ?? 0 }, (ctx) =>
        runQueueCase(options, run, {
          skip: (reason) => {
            ctx.skip(reason);
            throw new Error('unreachable');
          },
        }),
      );
    }
  });
}
