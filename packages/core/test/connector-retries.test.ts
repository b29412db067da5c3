import { describe, expect, it } from 'vitest';
import {
  connectorBackoff,
  DEFAULT_CONNECTOR_RETRY,
  isRetryableHttpStatus,
  resolveRetryOptions,
  withConnectorRetries,
  type ConnectorRetriesOptions,
} from '../src/connector.js';
import { KmError, type Logger } from '../src/index.js';

/** What a fake SDK throws: an HTTP answer, maybe with the server's Retry-After. */
class FakeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}`);
  }
}

/** A connector's translator, as the providers write them; it records what it was given. */
function translator(signal?: AbortSignal) {
  const seen: unknown[] = [];
  const toKmError = (e: unknown): KmError => {
    seen.push(e);
    if (signal?.aborted) return new KmError('aborted', 'call: aborted', { connector: 'fake', cause: e });
    if (e instanceof FakeHttpError) {
      const code = e.status === 429 ? 'rate_limited' : e.status === 401 ? 'unauthorized' : 'transient';
      return new KmError(code, `call: ${e.message}`, {
        connector: 'fake',
        transient: isRetryableHttpStatus(e.status),
        retryAfterMs: e.retryAfterMs,
        cause: e,
      });
    }
    return new KmError('upstream_error', `call: ${String(e)}`, { connector: 'fake', cause: e });
  };
  return { seen, toKmError };
}

/** A logger that keeps its warnings. */
function recordingLogger() {
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (message, fields) => warnings.push({ message, fields }),
    error() {},
  };
  return { warnings, logger };
}

function options(overrides: Partial<ConnectorRetriesOptions> = {}): ConnectorRetriesOptions {
  return {
    connector: 'fake',
    what: 'call',
    retry: { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 5 },
    toKmError: translator().toKmError,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<KmError> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(KmError);
    return e as KmError;
  }
  throw new Error('expected a rejection');
}

describe('withConnectorRetries', () => {
  it('returns what a successful attempt returns, retrying transient failures before it', async () => {
    let calls = 0;
    const result = await withConnectorRetries(async () => {
      if (++calls < 3) throw new FakeHttpError(503);
      return 'done';
    }, options());
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('translates every error an attempt throws with the connector translator', async () => {
    const { seen, toKmError } = translator();
    const thrown: FakeHttpError[] = [];
    const error = await failure(
      withConnectorRetries(async () => {
        const e = new FakeHttpError(500);
        thrown.push(e);
        throw e;
      }, options({ toKmError })),
    );
    expect(thrown).toHaveLength(4);
    expect(seen).toEqual(thrown);
    expect(error).toMatchObject({ code: 'transient', connector: 'fake' });
    expect(error.cause).toBe(thrown[3]);
  });

  it('retries a transient error up to maxRetries, then rethrows the last one still transient', async () => {
    let calls = 0;
    const error = await failure(
      withConnectorRetries(
        async () => {
          calls++;
          throw new FakeHttpError(429);
        },
        options({ retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 } }),
      ),
    );
    expect(calls).toBe(3);
    expect(error).toMatchObject({ code: 'rate_limited', connector: 'fake', transient: true });
  });

  it('maxRetries 0 tries once', async () => {
    let calls = 0;
    await failure(
      withConnectorRetries(async () => (calls++, Promise.reject(new FakeHttpError(503))), options({ retry: { maxRetries: 0 } })),
    );
    expect(calls).toBe(1);
  });

  it('never retries a fatal error', async () => {
    let calls = 0;
    const { warnings, logger } = recordingLogger();
    const error = await failure(
      withConnectorRetries(async () => {
        calls++;
        throw new FakeHttpError(401);
      }, options({ logger })),
    );
    expect(calls).toBe(1);
    expect(error).toMatchObject({ code: 'unauthorized', connector: 'fake', transient: false });
    expect(warnings).toEqual([]);
  });

  it('keeps a KmError an attempt throws as it is', async () => {
    const own = new KmError('input_too_long', 'too long', { connector: 'fake' });
    const { seen, toKmError } = translator();
    const error = await failure(withConnectorRetries(() => Promise.reject(own), options({ toKmError })));
    expect(error).toBe(own);
    expect(seen).toEqual([]);
  });

  it("waits as long as the server's Retry-After says, capped at maxDelayMs", async () => {
    const { warnings, logger } = recordingLogger();
    let calls = 0;
    const started = performance.now();
    await withConnectorRetries(
      async () => {
        if (++calls === 1) throw new FakeHttpError(429, 60);
        if (calls === 2) throw new FakeHttpError(503, 90_000);
        return 'ok';
      },
      options({ retry: { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 80 }, logger }),
    );
    const elapsed = performance.now() - started;
    expect(warnings.map((w) => w.fields?.delayMs)).toEqual([60, 80]);
    expect(elapsed).toBeGreaterThanOrEqual(130); // lower bound only: 60 + 80 ms of waiting, timers may fire a little late
  });

  it('logs each retry as "<connector> request failed, retrying" with what, retry, delayMs and the error', async () => {
    const { warnings, logger } = recordingLogger();
    await failure(withConnectorRetries(() => Promise.reject(new FakeHttpError(502)), options({ what: 'embed', logger })));
    expect(warnings).toHaveLength(3);
    expect(warnings.map((w) => w.message)).toEqual(Array(3).fill('fake request failed, retrying'));
    expect(warnings.map((w) => w.fields?.retry)).toEqual([1, 2, 3]);
    for (const { fields } of warnings) {
      expect(fields).toMatchObject({ what: 'embed', error: '[km] [fake] call: HTTP 502' });
      expect(fields?.delayMs).toBeGreaterThanOrEqual(0);
      expect(fields?.delayMs).toBeLessThanOrEqual(5);
    }
  });

  it('an abort during a backoff stops at once with aborted, naming the connector', async () => {
    const controller = new AbortController();
    const warnings: string[] = [];
    let calls = 0;
    // Told before the wait begins: abort once the wait is under way.
    const logger: Logger = {
      ...recordingLogger().logger,
      warn: (message) => (warnings.push(message), setTimeout(() => controller.abort(), 10)),
    };
    const error = await failure(
      withConnectorRetries(
        async () => {
          calls++;
          throw new FakeHttpError(503);
        },
        // A 60 s backoff: the test would time out if the abort did not end it.
        options({ retry: { maxRetries: 3, initialDelayMs: 60_000 }, signal: controller.signal, logger }),
      ),
    );
    expect(calls).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(error).toMatchObject({ code: 'aborted', connector: 'fake' });
  });

  it('an abort before the first attempt rejects with the translator’s aborted error and never calls the attempt', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const error = await failure(
      withConnectorRetries(async () => calls++, options({ signal: controller.signal, toKmError: translator(controller.signal).toKmError })),
    );
    expect(calls).toBe(0);
    expect(error).toMatchObject({ code: 'aborted', connector: 'fake' });
  });
});

describe('resolveRetryOptions', () => {
  it('fills what is not given from the defaults', () => {
    expect(resolveRetryOptions(undefined)).toEqual(DEFAULT_CONNECTOR_RETRY);
    expect(DEFAULT_CONNECTOR_RETRY).toEqual({ maxRetries: 5, initialDelayMs: 500, maxDelayMs: 60_000 });
    const ollama = { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 30_000 };
    expect(resolveRetryOptions({ maxRetries: 0, maxDelayMs: undefined }, ollama)).toEqual({ ...ollama, maxRetries: 0 });
  });

  it('refuses a maxRetries that is not an integer >= 0 and negative or non-finite delays', () => {
    for (const retry of [
      { maxRetries: -1 },
      { maxRetries: 1.5 },
      { maxRetries: Number.NaN },
      { initialDelayMs: -5 },
      { maxDelayMs: Infinity },
    ]) {
      let thrown: unknown;
      try {
        resolveRetryOptions(retry);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, JSON.stringify(retry)).toMatchObject({ code: 'invalid_argument', name: 'InvalidInputError' });
    }
  });

  it('withConnectorRetries refuses bad options before any attempt', async () => {
    let calls = 0;
    const error = await failure(withConnectorRetries(async () => calls++, options({ retry: { maxRetries: -1 } })));
    expect(error.code).toBe('invalid_argument');
    expect(calls).toBe(0);
  });
});

describe('connectorBackoff', () => {
  it('doubles with equal jitter, between half and all of the ceiling, capped at maxDelayMs', () => {
    const low = connectorBackoff({ initialDelayMs: 100, maxDelayMs: 1000 }, () => 0);
    const high = connectorBackoff({ initialDelayMs: 100, maxDelayMs: 1000 }, () => 1);
    expect([low.delayMs(1), high.delayMs(1), low.delayMs(3), high.delayMs(3), high.delayMs(10)]).toEqual([50, 100, 200, 400, 1000]);
    expect(low.delayMs(1, 700)).toBe(700);
    expect(low.delayMs(1, 90_000)).toBe(1000);
  });

  it('takes the default delays when none are given', () => {
    const policy = connectorBackoff();
    expect([policy.initialDelayMs, policy.maxDelayMs, policy.jitter]).toEqual([500, 60_000, 'equal']);
  });
});

describe('isRetryableHttpStatus', () => {
  it('retries timeouts, conflicts, rate limits and server errors only', () => {
    expect([408, 409, 429, 500, 502, 503, 529].every(isRetryableHttpStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 413, 422].some(isRetryableHttpStatus)).toBe(false);
  });
});
