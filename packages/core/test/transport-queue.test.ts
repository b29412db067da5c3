import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { KmError, silentLogger, type Logger, type QueueHandlerResult } from '../src/index.js';
import {
  TransportQueue,
  type QueueConsumerOptions,
  type QueueTransport,
  type QueueTransportCapabilities,
  type TransportMessage,
  type TransportOpenOptions,
} from '../src/connector.js';

// The engine's calls, checked against a transport double that records them. It stands in for no
// backend: every real queue runs the shared conformance suite on its own backend.

interface Message extends TransportMessage {
  readonly id: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class RecordingTransport implements QueueTransport<Message> {
  readonly names = { connector: 'test-queue', className: 'TestQueue', label: 'test queue' };
  readonly capabilities: QueueTransportCapabilities;
  readonly defaults = { maxAttempts: 3, retryDelayMs: 100, maxRetryDelayMs: 250 };
  readonly calls: string[] = [];
  readonly ready: Message[] = [];
  /** What each receive asked for. */
  readonly asked: number[] = [];
  opened: TransportOpenOptions | undefined;
  /** Makes the next receives throw these errors, one each. */
  failReceives: unknown[] = [];
  renewMs = 0;
  receiveMs = 0;

  constructor(capabilities: QueueTransportCapabilities = {}) {
    this.capabilities = { pollIntervalMs: 20, retryJitter: 'none', ...capabilities };
  }

  add(id: string, attempt = 1): void {
    this.ready.push({ id, body: id, attempt });
    this.opened?.wake();
  }

  async open(name: string, options: TransportOpenOptions): Promise<void> {
    this.opened = options;
    this.calls.push(`open ${name} consume=${options.consume} prefetch=${options.prefetch}`);
  }
  async publish(body: string): Promise<void> {
    this.calls.push(`publish ${body}`);
  }
  async receive(max: number): Promise<Message[]> {
    this.asked.push(max);
    if (this.failReceives.length > 0) throw this.failReceives.shift();
    if (this.receiveMs) await sleep(this.receiveMs);
    return this.ready.splice(0, max);
  }
  async ack(m: Message): Promise<void> {
    this.calls.push(`ack ${m.id}`);
  }
  async retry(m: Message, delayMs: number): Promise<void> {
    this.calls.push(`retry ${m.id} ${delayMs}`);
  }
  async poison(m: Message, reason: string): Promise<void> {
    this.calls.push(`poison ${m.id} (${reason})`);
  }
  async renew(m: Message): Promise<void> {
    this.calls.push(`renew ${m.id}`);
    if (this.renewMs) await sleep(this.renewMs);
    this.calls.push(`renewed ${m.id}`);
  }
  async release(m: Message): Promise<void> {
    this.calls.push(`release ${m.id}`);
  }
  async close(): Promise<void> {
    this.calls.push('close');
  }
}

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);
process.on('unhandledRejection', onRejection);
const open: TransportQueue<Message>[] = [];
afterEach(async () => {
  for (const q of open.splice(0)) await q.close();
  expect(rejections).toEqual([]);
});
afterAll(() => void process.off('unhandledRejection', onRejection));

async function consumer(
  transport: RecordingTransport,
  handler: (message: string) => Promise<QueueHandlerResult>,
  options: QueueConsumerOptions = {},
): Promise<TransportQueue<Message>> {
  const queue = new TransportQueue(transport, options);
  open.push(queue);
  queue.onDequeue(handler);
  await queue.connect('steps', { dequeue: true });
  return queue;
}

/** A handler whose answers the test gives, one message at a time. */
function heldHandler() {
  const pending = new Map<string, (result: QueueHandlerResult) => void>();
  let running = 0;
  let most = 0;
  const handler = (message: string) =>
    new Promise<QueueHandlerResult>((resolve) => {
      running++;
      most = Math.max(most, running);
      pending.set(message, (result) => {
        running--;
        pending.delete(message);
        resolve(result);
      });
    });
  return { handler, pending, most: () => most, answer: (id: string, result: QueueHandlerResult) => pending.get(id)!(result) };
}

describe('TransportQueue (the consumer engine)', () => {
  it('checks connect and enqueue like every km queue, with typed errors naming the connector', async () => {
    const transport = new RecordingTransport();
    const queue = new TransportQueue(transport);
    open.push(queue);
    await expect(queue.connect('steps', { dequeue: true })).rejects.toMatchObject({ code: 'invalid_argument', connector: 'test-queue' });
    await expect(queue.enqueue('early')).rejects.toMatchObject({ code: 'invalid_argument' });
    await queue.connect('steps', { dequeue: false });
    await expect(queue.connect('other', { dequeue: false })).rejects.toThrow(/already connected to "steps"/);
    await expect(queue.enqueue(42 as unknown as string)).rejects.toMatchObject({ code: 'invalid_argument' });
    await queue.enqueue('hello');
    await queue.close();
    await expect(queue.enqueue('late')).rejects.toThrow(/this TestQueue is closed/);
    expect(transport.calls).toEqual(['open steps consume=false prefetch=1', 'publish hello', 'close']);
  });

  it('takes at most `concurrency` messages at once, and the next ones as handlers finish', async () => {
    const transport = new RecordingTransport();
    const held = heldHandler();
    await consumer(transport, held.handler, { concurrency: 2 });
    expect(transport.opened?.prefetch).toBe(2);
    for (const id of ['a', 'b', 'c', 'd', 'e']) transport.add(id);
    await vi.waitFor(() => expect([...held.pending.keys()]).toEqual(['a', 'b']));
    await sleep(60); // several polls: still two
    expect(held.pending.size).toBe(2);
    expect(Math.max(...transport.asked)).toBeLessThanOrEqual(2);
    held.answer('a', 'ok');
    await vi.waitFor(() => expect([...held.pending.keys()]).toEqual(['b', 'c']));
    for (const id of ['b', 'c']) held.answer(id, 'ok');
    await vi.waitFor(() => expect(held.pending.size).toBe(2));
    for (const id of ['d', 'e']) held.answer(id, 'ok');
    await vi.waitFor(() => expect(transport.calls.filter((c) => c.startsWith('ack'))).toHaveLength(5));
    expect(held.most()).toBe(2);
  });

  it('settles ok → ack, fatal → poison, transient → retry, and the last attempt → poison', async () => {
    const transport = new RecordingTransport();
    const results: Record<string, QueueHandlerResult> = { good: 'ok', bad: 'fatal', flaky: 'transient', spent: 'transient' };
    const seen: string[] = [];
    await consumer(transport, async (m) => (seen.push(m), results[m]!));
    transport.add('good');
    transport.add('bad');
    transport.add('flaky', 2);
    transport.add('spent', 3); // maxAttempts is 3 (the transport's default)
    await vi.waitFor(() => expect(transport.calls).toHaveLength(5));
    expect(transport.calls.slice(1)).toEqual(['ack good', 'poison bad (fatal)', 'retry flaky 200', 'poison spent (failed 3 times)']);
    expect(seen).toEqual(['good', 'bad', 'flaky', 'spent']);
  });

  it("retries after the handler's retryAfterMs (capped by the longest delay), and tells the handler which delivery it is", async () => {
    const transport = new RecordingTransport();
    const deliveries: Array<[string, unknown]> = [];
    const handler = async (m: string, delivery?: unknown) => {
      deliveries.push([m, delivery]);
      return m === 'slow' ? { retryAfterMs: 120 } : m === 'huge' ? { retryAfterMs: 10_000 } : ({ retryAfterMs: -1 } as QueueHandlerResult);
    };
    const queue = new TransportQueue(transport, {});
    open.push(queue);
    queue.onDequeue(handler);
    await queue.connect('steps', { dequeue: true });
    transport.add('slow');
    transport.add('huge', 2);
    transport.add('bad');
    await vi.waitFor(() => expect(transport.calls).toHaveLength(4));
    // 120 ms as asked; 10 s capped at the longest delay (250); a nonsense delay is a plain transient (100).
    expect(transport.calls.slice(1)).toEqual(['retry slow 120', 'retry huge 250', 'retry bad 100']);
    expect(deliveries).toEqual([
      ['slow', { attempt: 1, maxAttempts: 3 }],
      ['huge', { attempt: 2, maxAttempts: 3 }],
      ['bad', { attempt: 1, maxAttempts: 3 }],
    ]);
  });

  it('names the message it poisons in the log line', async () => {
    const transport = new RecordingTransport();
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    const logger: Logger = { ...silentLogger, warn: (message, fields) => void warnings.push([message, fields]) };
    await consumer(transport, async () => 'fatal', { logger });
    transport.add('{"index":"docs","document_id":"report"}');
    await vi.waitFor(() => expect(warnings).toHaveLength(1));
    expect(warnings[0]).toEqual([
      'test queue moved a message to the poison queue',
      expect.objectContaining({ why: 'fatal', message: '{"index":"docs","document_id":"report"}' }),
    ]);
  });

  it('poisons a message delivered more than maxAttempts times unread (its consumers died without answering)', async () => {
    const transport = new RecordingTransport();
    const seen: string[] = [];
    await consumer(transport, async (m) => (seen.push(m), 'ok'), { maxAttempts: 2 });
    transport.add('cursed', 3);
    transport.add('fine', 2);
    await vi.waitFor(() => expect(transport.calls).toHaveLength(3));
    expect(transport.calls.slice(1)).toEqual(['poison cursed (delivered 3 times without an answer)', 'ack fine']);
    expect(seen).toEqual(['fine']);
  });

  it('turns a handler that throws, rejects or answers nonsense into a transient failure, logged, never an unhandled rejection', async () => {
    const transport = new RecordingTransport();
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => void warnings.push(message) };
    const handlers: Record<string, () => Promise<QueueHandlerResult>> = {
      sync: () => {
        throw new Error('sync');
      },
      async: () => Promise.reject(new Error('async')),
      nonsense: async () => 'maybe' as QueueHandlerResult,
    };
    await consumer(transport, (m) => handlers[m]!(), { logger });
    for (const id of Object.keys(handlers)) transport.add(id);
    await vi.waitFor(() => expect(transport.calls).toHaveLength(4));
    expect(transport.calls.slice(1)).toEqual(['retry sync 100', 'retry async 100', 'retry nonsense 100']);
    expect(warnings.filter((w) => w === 'test queue handler threw; retrying the message')).toHaveLength(2);
  });

  it('takes every retry delay from the BackoffPolicy, with the transport’s jitter and the options’ delays', async () => {
    const none = new TransportQueue(new RecordingTransport(), { retryDelayMs: 100, maxRetryDelayMs: 250 });
    expect([1, 2, 3, 4].map((attempt) => none.backoff.delayMs(attempt))).toEqual([100, 200, 250, 250]);
    const equal = new TransportQueue(new RecordingTransport({ retryJitter: 'equal' }), { retryDelayMs: 1000, maxRetryDelayMs: 8000 });
    expect(equal.backoff).toMatchObject({ jitter: 'equal', initialDelayMs: 1000, maxDelayMs: 8000 });
    expect(equal.backoff.delayMs(1)).toBeGreaterThanOrEqual(500);
    expect(new TransportQueue(new RecordingTransport()).backoff).toMatchObject({ initialDelayMs: 100, maxDelayMs: 250 }); // transport defaults

    const transport = new RecordingTransport();
    await consumer(transport, async () => 'transient', { maxAttempts: 9, retryDelayMs: 40, maxRetryDelayMs: 100 });
    for (const attempt of [1, 2, 3, 4]) transport.add(`m${attempt}`, attempt);
    await vi.waitFor(() => expect(transport.calls).toHaveLength(5));
    expect(transport.calls.slice(1).sort()).toEqual(['retry m1 40', 'retry m2 80', 'retry m3 100', 'retry m4 100']);
  });

  it('renews the lease every third of it while the handler runs, waits for a renewal in flight before settling, and stops after', async () => {
    const transport = new RecordingTransport({ leaseMs: 150 });
    transport.renewMs = 200; // longer than the 50 ms between ticks: one renewal at a time
    const held = heldHandler();
    await consumer(transport, held.handler);
    transport.add('long');
    await vi.waitFor(() => expect(held.pending.has('long')).toBe(true));
    await vi.waitFor(() => expect(transport.calls.filter((c) => c === 'renewed long').length).toBeGreaterThanOrEqual(2), { timeout: 2000 });
    expect(transport.calls.filter((c) => c === 'renew long').length).toBeLessThanOrEqual(3);
    await vi.waitFor(() => expect(transport.calls.at(-1)).toBe('renew long'), { interval: 5 }); // a renewal in flight
    held.answer('long', 'ok');
    await vi.waitFor(() => expect(transport.calls.at(-1)).toBe('ack long'));
    expect(transport.calls.slice(-3)).toEqual(['renew long', 'renewed long', 'ack long']);
    const settled = transport.calls.length;
    await sleep(300);
    expect(transport.calls).toHaveLength(settled);
  });

  it('close stops receiving, hands back the messages in progress (newest first), ignores their late results, and closes the transport last', async () => {
    const transport = new RecordingTransport({ leaseMs: 150 });
    const held = heldHandler();
    const queue = await consumer(transport, held.handler, { concurrency: 3 });
    for (const id of ['a', 'b', 'c']) transport.add(id);
    await vi.waitFor(() => expect(held.pending.size).toBe(3));
    held.answer('a', 'ok');
    await vi.waitFor(() => expect(transport.calls).toContain('ack a'));
    await queue.close();
    const atClose = transport.calls.filter((c) => !c.startsWith('renew'));
    expect(atClose.slice(-3)).toEqual(['release c', 'release b', 'close']);
    held.answer('b', 'ok');
    held.answer('c', 'transient');
    transport.add('after');
    await sleep(100);
    expect(transport.calls.filter((c) => !c.startsWith('renew'))).toEqual(atClose);
  });

  it('leaves the hand-back to a transport whose close returns what it holds', async () => {
    const transport = new RecordingTransport({ releasesOnClose: true });
    const held = heldHandler();
    const queue = await consumer(transport, held.handler);
    transport.add('held');
    await vi.waitFor(() => expect(held.pending.size).toBe(1));
    await queue.close();
    expect(transport.calls.slice(1)).toEqual(['close']);
  });

  it('hands back at once what a receive still in progress at close brings', async () => {
    const transport = new RecordingTransport();
    transport.receiveMs = 80;
    const seen: string[] = [];
    const queue = await consumer(transport, async (m) => (seen.push(m), 'ok'));
    await sleep(30);
    transport.ready.push({ id: 'late', body: 'late', attempt: 1 });
    await queue.close();
    expect(transport.calls.slice(1)).toEqual(['release late', 'close']);
    expect(seen).toEqual([]);
  });

  it('logs a failed receive and tries again after a backoff, so the consumer never stops', async () => {
    const transport = new RecordingTransport();
    const logged: string[] = [];
    const record = (level: string) => (message: string) => void logged.push(`${level}: ${message}`);
    const logger: Logger = { ...silentLogger, warn: record('warn'), error: record('error') };
    transport.failReceives = [new KmError('transient', 'network down', { transient: true }), new TypeError('malformed answer')];
    const seen: string[] = [];
    await consumer(transport, async (m) => (seen.push(m), 'ok'), { logger });
    transport.add('still handled');
    await vi.waitFor(() => expect(seen).toEqual(['still handled']), { timeout: 5000 });
    expect(logged).toEqual(['warn: test queue polling failed; retrying', 'error: test queue polling failed; retrying']);
  });

  it('a settle that fails is logged and the message handed back', async () => {
    const transport = new RecordingTransport();
    transport.ack = async () => {
      throw new Error('receipt expired');
    };
    await consumer(transport, async () => 'ok');
    transport.add('m');
    await vi.waitFor(() => expect(transport.calls.slice(1)).toEqual(['release m']));
  });
});
