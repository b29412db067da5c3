import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, stat, unlink, utimes } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { IQueue, QueueConnectOptions, QueueHandlerResult } from '../contracts/queue.js';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { poisonQueueName } from './in-memory-queue.js';

/** Options of {@link FileQueue}. */
export interface FileQueueOptions {
  /** Folder holding one sub-folder per queue. Every client of a queue must use the same one. */
  directory: string;
  /** Deliveries of a message before it moves to the poison queue. @default 5 */
  maxAttempts?: number;
  /** Delay before a transient failure is retried, doubled each attempt. @default 1000 */
  retryDelayMs?: number;
  /** Longest retry delay. @default 60000 */
  maxRetryDelayMs?: number;
  /**
   * How long a claimed message stays invisible to other consumers. The claim is renewed every
   * third of this while its handler runs, so only a dead or stalled consumer loses it; the
   * message then goes back to the queue. @default 60000
   */
  visibilityTimeoutMs?: number;
  /** How often the folder is checked when no change notification arrives. @default 250 */
  pollIntervalMs?: number;
  /** Messages handled at once by this client. @default 1 */
  concurrency?: number;
  /** fsync each message before it becomes visible, so it survives a power cut. @default true */
  durable?: boolean;
}

/** A message file name in `ready/`: `{notBefore}.{sequence}.{attempts}.{id}.msg`. */
interface ReadyName {
  file: string;
  notBefore: number;
  attempts: number;
  id: string;
}

interface Claim {
  id: string;
  attempts: number;
  path: string;
  renew: NodeJS.Timeout;
}

const READY = 'ready';
const CLAIMED = 'claimed';
const TEMP = 'tmp';
const NAME_PATTERN = /^(\d{15})\.(\d{9})\.(\d+)\.([0-9a-f-]{36})\.msg$/;
const CLAIMED_PATTERN = /^(\d+)\.([0-9a-f-]{36})\.(\d+)\.msg$/;

/** Wakes consumers in this process when a producer in this process enqueues. */
const localSignals = new EventEmitter().setMaxListeners(0);
let sequence = 0;

/**
 * A durable queue in a folder, the embedded default of the service: survives restarts and
 * `kill -9`, and is shared by every process that uses the same folder on one machine.
 *
 * - `{directory}/{name}/ready/`: messages waiting, named so that a sorted listing is FIFO;
 *   a retried message carries the time before which it must not run.
 * - Claim: `rename` from `ready/` to `claimed/` is atomic, so exactly one consumer wins a
 *   message. The claimed file's modification time is its lease expiry, renewed while the
 *   handler runs; an expired claim, or one whose process died (the claim names its pid), is
 *   put back (or poisoned after `maxAttempts`) by any client.
 * - `{directory}/{name}-poison/ready/`: messages that failed fatally or too often.
 *
 * ```ts
 * const queue = new FileQueue({ directory: './km-data/queues' });
 * queue.onDequeue(async (message) => (await handle(message), 'ok'));
 * await queue.connect('extract', { dequeue: true });
 * await queue.enqueue('{"index":"default","document_id":"doc1"}');
 * ```
 */
export class FileQueue implements IQueue {
  private readonly root: string;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly visibilityTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly concurrency: number;
  private readonly durable: boolean;
  private name: string | undefined;
  private handler: ((message: string) => Promise<QueueHandlerResult>) | undefined;
  private consuming = false;
  private closed = false;
  private started = false;
  private readonly claims = new Map<string, Claim>();
  private watcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private lastReap = 0;
  private readonly onSignal = () => this.pump();

  constructor(options: FileQueueOptions) {
    if (!options || typeof options.directory !== 'string' || options.directory.length === 0) {
      throw new InvalidInputError('invalid_argument', 'FileQueue needs a directory');
    }
    this.root = resolve(options.directory);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? 1000);
    this.maxRetryDelayMs = Math.max(this.retryDelayMs, options.maxRetryDelayMs ?? 60_000);
    this.visibilityTimeoutMs = Math.max(100, options.visibilityTimeoutMs ?? 60_000);
    this.pollIntervalMs = Math.max(10, options.pollIntervalMs ?? 250);
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.durable = options.durable ?? true;
  }

  async connect(name: string, options: QueueConnectOptions): Promise<void> {
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(name)) {
      throw new InvalidInputError('invalid_argument', `queue name ${JSON.stringify(name)} is invalid: lower-case letters, digits, - and _`);
    }
    this.name = name;
    for (const folder of [READY, CLAIMED, TEMP]) await mkdir(join(this.root, name, folder), { recursive: true });
    await mkdir(join(this.root, poisonQueueName(name), READY), { recursive: true });
    if (options.dequeue) {
      this.consuming = true;
      this.start();
    }
  }

  async enqueue(message: string): Promise<void> {
    if (this.closed) throw new KmError('invalid_argument', 'queue is closed');
    if (!this.name) throw new KmError('invalid_argument', 'connect the queue before enqueueing');
    if (typeof message !== 'string') throw new InvalidInputError('invalid_argument', 'a queue message must be a string');
    await this.publish(this.name, message);
  }

  onDequeue(handler: (message: string) => Promise<QueueHandlerResult>): void {
    this.handler = handler;
    this.start();
  }

  /**
   * Stops consuming and puts every message this client has claimed but not finished back in
   * the queue, for another consumer. Handlers still running are not interrupted; their
   * results are ignored.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.name) localSignals.off(this.readyDir(this.name), this.onSignal);
    await this.pumping;
    const claims = [...this.claims.values()];
    this.claims.clear();
    for (const claim of claims) {
      clearInterval(claim.renew);
      await this.moveBack(claim.path, claim.id, claim.attempts, 0).catch(() => undefined);
    }
  }

  private readyDir(name: string): string {
    return join(this.root, name, READY);
  }

  private start(): void {
    if (this.started || !this.consuming || !this.handler || !this.name || this.closed) return;
    this.started = true;
    const ready = this.readyDir(this.name);
    localSignals.on(ready, this.onSignal);
    try {
      this.watcher = watch(ready, { persistent: false }, this.onSignal);
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = undefined; // polling alone still works
    }
    // A consuming client keeps its process alive until it is closed, like a broker connection.
    this.pollTimer = setInterval(this.onSignal, this.pollIntervalMs);
    this.pump();
  }

  /** Claims and delivers messages until the queue is empty or the concurrency is reached. */
  private pump(): void {
    if (this.closed || !this.started) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      try {
        do {
          this.pumpAgain = false;
          await this.reapExpiredClaims();
          await this.claimAvailable();
        } while (this.pumpAgain && !this.closed);
      } catch (error) {
        if (!this.closed) process.emitWarning(`[km] file queue ${this.name}: ${(error as Error).message}`);
      } finally {
        this.pumping = undefined;
      }
    })();
  }

  private async claimAvailable(): Promise<void> {
    const name = this.name!;
    if (this.claims.size >= this.concurrency) return;
    const now = Date.now();
    for (const entry of await this.listReady(name)) {
      if (this.closed || this.claims.size >= this.concurrency) return;
      if (entry.notBefore > now) break; // sorted: nothing later is due either
      const attempts = entry.attempts + 1;
      const claimed = join(this.root, name, CLAIMED, `${attempts}.${entry.id}.${process.pid}.msg`);
      const source = join(this.readyDir(name), entry.file);
      try {
        // The lease is stamped before the rename, so no other client ever sees this claim
        // with a stale modification time.
        const lease = new Date(Date.now() + this.visibilityTimeoutMs);
        await utimes(source, lease, lease);
        await rename(source, claimed);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another consumer won it
        throw error;
      }
      let body: string;
      try {
        body = await readFile(claimed, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const renew = setInterval(
        () => {
          const lease = new Date(Date.now() + this.visibilityTimeoutMs);
          utimes(claimed, lease, lease).catch(() => undefined);
        },
        Math.max(50, Math.floor(this.visibilityTimeoutMs / 3)),
      );
      renew.unref?.();
      const claim: Claim = { id: entry.id, attempts, path: claimed, renew };
      this.claims.set(entry.id, claim);
      void this.deliver(claim, body);
    }
  }

  private async deliver(claim: Claim, body: string): Promise<void> {
    let result: QueueHandlerResult;
    try {
      result = await this.handler!(body);
    } catch {
      result = 'transient';
    }
    clearInterval(claim.renew);
    if (this.closed || this.claims.get(claim.id) !== claim) return; // released by close()
    try {
      if (result === 'ok') {
        await unlink(claim.path).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
      } else if (result === 'fatal' || claim.attempts >= this.maxAttempts) {
        await this.moveToPoison(claim.path, claim.id);
      } else {
        const delay = Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** (claim.attempts - 1));
        await this.moveBack(claim.path, claim.id, claim.attempts, delay);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        process.emitWarning(`[km] file queue ${this.name}: ${(error as Error).message}`);
      }
    } finally {
      this.claims.delete(claim.id);
      this.pump();
    }
  }

  /** Puts back claims whose lease expired (their consumer died or stalled). */
  private async reapExpiredClaims(): Promise<void> {
    const now = Date.now();
    if (now - this.lastReap < Math.min(1000, this.visibilityTimeoutMs / 4)) return;
    this.lastReap = now;
    const name = this.name!;
    const folder = join(this.root, name, CLAIMED);
    for (const file of await readdir(folder)) {
      const match = CLAIMED_PATTERN.exec(file);
      if (!match || this.claims.has(match[2]!)) continue;
      const path = join(folder, file);
      try {
        // A claim expires with its lease, or at once when its owner (a process on this machine) is gone.
        if ((await stat(path)).mtimeMs > now && isAlive(Number(match[3]))) continue;
        const attempts = Number(match[1]);
        if (attempts >= this.maxAttempts) await this.moveToPoison(path, match[2]!);
        else await this.moveBack(path, match[2]!, attempts, 0);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }

  private async moveBack(path: string, id: string, attempts: number, delayMs: number): Promise<void> {
    const name = this.name!;
    await rename(path, join(this.readyDir(name), readyFileName(Date.now() + delayMs, attempts, id)));
    localSignals.emit(this.readyDir(name));
  }

  private async moveToPoison(path: string, id: string): Promise<void> {
    const poison = poisonQueueName(this.name!);
    await rename(path, join(this.readyDir(poison), readyFileName(Date.now(), 0, id)));
    localSignals.emit(this.readyDir(poison));
  }

  private async publish(name: string, message: string): Promise<void> {
    const id = randomUUID();
    const temp = join(this.root, name, TEMP, `${id}.tmp`);
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(message, 'utf8');
      if (this.durable) await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, join(this.readyDir(name), readyFileName(Date.now(), 0, id)));
    localSignals.emit(this.readyDir(name));
  }

  private async listReady(name: string): Promise<ReadyName[]> {
    const files = await readdir(this.readyDir(name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    const entries: ReadyName[] = [];
    for (const file of files.sort()) {
      const match = NAME_PATTERN.exec(file);
      if (match) entries.push({ file, notBefore: Number(match[1]), attempts: Number(match[3]), id: match[4]! });
    }
    return entries;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

function readyFileName(notBefore: number, attempts: number, id: string): string {
  sequence = (sequence + 1) % 1e9;
  return `${String(notBefore).padStart(15, '0')}.${String(sequence).padStart(9, '0')}.${attempts}.${id}.msg`;
}
