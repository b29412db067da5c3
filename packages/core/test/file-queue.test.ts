import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileQueue, type FileQueueOptions, type QueueHandlerResult } from '../src/index.js';

const open: FileQueue[] = [];
afterEach(async () => {
  for (const q of open.splice(0)) await q.close();
});

function queue(directory: string, options: Partial<FileQueueOptions> = {}): FileQueue {
  const q = new FileQueue({ directory, pollIntervalMs: 20, durable: false, retryDelayMs: 10, ...options });
  open.push(q);
  return q;
}

async function consume(
  directory: string,
  name: string,
  handler: (message: string) => Promise<QueueHandlerResult>,
  options: Partial<FileQueueOptions> = {},
): Promise<FileQueue> {
  const q = queue(directory, options);
  q.onDequeue(handler);
  await q.connect(name, { dequeue: true });
  return q;
}

const folder = () => mkdtempSync(join(tmpdir(), 'km-fq-'));

describe('FileQueue', () => {
  it('keeps messages on disk: a client created later (a restarted process) receives them', async () => {
    const dir = folder();
    const producer = queue(dir);
    await producer.connect('extract', { dequeue: false });
    await producer.enqueue('a');
    await producer.enqueue('b');
    await producer.close();
    expect(readdirSync(join(dir, 'extract', 'ready'))).toHaveLength(2);

    const received: string[] = [];
    await consume(dir, 'extract', async (m) => (received.push(m), 'ok'));
    await vi.waitFor(() => expect(received).toEqual(['a', 'b']));
    await vi.waitFor(() => expect(readdirSync(join(dir, 'extract', 'claimed'))).toEqual([]));
  });

  it('competing consumers in separate clients deliver every message exactly once', async () => {
    const dir = folder();
    const seen: string[] = [];
    const handler = async (m: string): Promise<QueueHandlerResult> => {
      seen.push(m);
      await new Promise((r) => setTimeout(r, 2));
      return 'ok';
    };
    await consume(dir, 'partition', handler, { concurrency: 3 });
    await consume(dir, 'partition', handler, { concurrency: 3 });
    await consume(dir, 'partition', handler, { concurrency: 3 });
    const producer = queue(dir);
    await producer.connect('partition', { dequeue: false });
    const sent = Array.from({ length: 60 }, (_, i) => `m${i}`);
    await Promise.all(sent.map((m) => producer.enqueue(m)));
    await vi.waitFor(() => expect(seen).toHaveLength(60), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 150));
    expect([...seen].sort()).toEqual([...sent].sort());
  });

  it('a claim left by a dead consumer is delivered again once its lease expires', async () => {
    const dir = folder();
    const producer = queue(dir);
    await producer.connect('save_records', { dequeue: false });
    // What a consumer killed with SIGKILL leaves behind: a claimed file whose lease ran out.
    const id = randomUUID();
    const claimed = join(dir, 'save_records', 'claimed', `1.${id}.${process.pid}.msg`);
    writeFileSync(claimed, 'orphan');
    const past = new Date(Date.now() - 5000);
    utimesSync(claimed, past, past);

    const received: string[] = [];
    await consume(dir, 'save_records', async (m) => (received.push(m), 'ok'), { visibilityTimeoutMs: 200 });
    await vi.waitFor(() => expect(received).toEqual(['orphan']), { timeout: 5000 });
  });

  it('a claim whose process is gone is delivered again at once, without waiting for its lease', async () => {
    const dir = folder();
    const producer = queue(dir);
    await producer.connect('extract', { dequeue: false });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(dead.stdout.toString());
    const claimed = join(dir, 'extract', 'claimed', `1.${randomUUID()}.${deadPid}.msg`);
    writeFileSync(claimed, 'from a killed process');
    const future = new Date(Date.now() + 60_000); // its lease would hold for a minute
    utimesSync(claimed, future, future);
    const received: string[] = [];
    await consume(dir, 'extract', async (m) => (received.push(m), 'ok'), { visibilityTimeoutMs: 60_000 });
    await vi.waitFor(() => expect(received).toEqual(['from a killed process']), { timeout: 3000 });
  });

  it('a live claim is renewed, so a long handler keeps its message', async () => {
    const dir = folder();
    let calls = 0;
    await consume(
      dir,
      'gen_embeddings',
      async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 700)); // several visibility timeouts
        return 'ok';
      },
      { visibilityTimeoutMs: 150 },
    );
    // A second client that would take the message if the first one's lease lapsed.
    let stolen = 0;
    await consume(dir, 'gen_embeddings', async () => (stolen++, 'ok'), { visibilityTimeoutMs: 150 });
    const producer = queue(dir);
    await producer.connect('gen_embeddings', { dequeue: false });
    await producer.enqueue('long');
    await vi.waitFor(() => expect(calls + stolen).toBe(1));
    await new Promise((r) => setTimeout(r, 1000));
    expect(calls + stolen).toBe(1);
    expect(readdirSync(join(dir, 'gen_embeddings', 'claimed'))).toEqual([]);
  });

  it('moves a message that keeps failing to the poison folder, with the attempts counted across crashes', async () => {
    const dir = folder();
    const producer = queue(dir);
    await producer.connect('extract', { dequeue: false });
    // Claimed twice already by consumers that died; the third delivery is the last.
    const claimed = join(dir, 'extract', 'claimed', `2.${randomUUID()}.${process.pid}.msg`);
    writeFileSync(claimed, 'cursed');
    const past = new Date(Date.now() - 5000);
    utimesSync(claimed, past, past);
    let calls = 0;
    await consume(dir, 'extract', async () => (calls++, 'transient'), { maxAttempts: 3, visibilityTimeoutMs: 200 });
    await vi.waitFor(() => expect(readdirSync(join(dir, 'extract-poison', 'ready'))).toHaveLength(1), { timeout: 5000 });
    expect(calls).toBe(1);
    const poisoned: string[] = [];
    await consume(dir, 'extract-poison', async (m) => (poisoned.push(m), 'ok'));
    await vi.waitFor(() => expect(poisoned).toEqual(['cursed']));
  });

  it('waits the retry delay before delivering a transient failure again', async () => {
    const dir = folder();
    const times: number[] = [];
    await consume(dir, 'summarize', async () => (times.push(Date.now()), times.length < 2 ? 'transient' : 'ok'), {
      retryDelayMs: 300,
    });
    const producer = queue(dir);
    await producer.connect('summarize', { dequeue: false });
    await producer.enqueue('later');
    await vi.waitFor(() => expect(times).toHaveLength(2), { timeout: 5000 });
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(280);
  });

  it('refuses bad queue names and unconnected use', async () => {
    const q = queue(folder());
    await expect(q.connect('../escape', { dequeue: false })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(q.enqueue('x')).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(() => new FileQueue({ directory: '' })).toThrow(/directory/);
  });
});
