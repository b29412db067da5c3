import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { poisonQueueName } from './poison-queue-name.js';
import { checkLocalQueueName } from './queue-name.js';
import type { QueueTransport, QueueTransportCapabilities, TransportMessage, TransportOpenOptions } from './queue-transport.js';

/** A claimed message: its file in `claimed/`. */
export interface FileMessage extends TransportMessage {
  readonly id: string;
  readonly path: string;
}

/** What the transport needs from `FileQueueOptions`, resolved. */
export interface FileQueueTransportOptions {
  root: string;
  visibilityTimeoutMs: number;
  pollIntervalMs: number;
  durable: boolean;
}

const READY = 'ready';
const CLAIMED = 'claimed';
const TEMP = 'tmp';
/** A message in `ready/`: `{notBefore}.{sequence}.{attempts}.{id}.msg`, so a sorted listing is FIFO. */
const READY_PATTERN = /^(\d{15})\.(\d{9})\.(\d+)\.([0-9a-f-]{36})\.msg$/;
/** A message in `claimed/`: `{attempts}.{id}.{pid}.msg`; its modification time is its lease expiry. */
const CLAIMED_PATTERN = /^(\d+)\.([0-9a-f-]{36})\.(\d+)\.msg$/;

/** Wakes consumers in this process when a producer in this process enqueues. */
const localSignals = new EventEmitter().setMaxListeners(0);
let sequence = 0;

/** The transport of `FileQueue`: one folder per queue, a claim is an atomic rename (see `FileQueue`). */
export class FileQueueTransport implements QueueTransport<FileMessage> {
  readonly names = { connector: 'file-queue', className: 'FileQueue', label: 'file queue' };
  readonly capabilities: QueueTransportCapabilities;
  private name = '';
  private wake: (() => void) | undefined;
  private watcher: FSWatcher | undefined;
  /** Ids this client holds: the reaper leaves them alone even when their lease looks stale. */
  private readonly claims = new Set<string>();
  private lastReap = 0;

  constructor(private readonly options: FileQueueTransportOptions) {
    this.capabilities = { leaseMs: options.visibilityTimeoutMs, pollIntervalMs: options.pollIntervalMs, retryJitter: 'none' };
  }

  async open(name: string, { consume, wake }: TransportOpenOptions): Promise<void> {
    this.name = checkLocalQueueName(name, this.names.connector);
    for (const folder of [READY, CLAIMED, TEMP]) await mkdir(join(this.options.root, name, folder), { recursive: true });
    await mkdir(this.ready(poisonQueueName(name)), { recursive: true });
    if (!consume) return;
    this.wake = wake;
    localSignals.on(this.ready(name), wake);
    try {
      this.watcher = watch(this.ready(name), { persistent: false }, wake);
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = undefined; // polling alone still works
    }
  }

  async publish(body: string): Promise<void> {
    const id = randomUUID();
    const temp = join(this.options.root, this.name, TEMP, `${id}.tmp`);
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(body, 'utf8');
      if (this.options.durable) await handle.datasync();
    } finally {
      await handle.close();
    }
    await this.moveToReady(temp, this.name, 0, id, 0);
  }

  async receive(max: number): Promise<FileMessage[]> {
    await this.reapExpiredClaims();
    const messages: FileMessage[] = [];
    const now = Date.now();
    const files = (await readdir(this.ready(this.name))).sort();
    for (const file of files) {
      const match = READY_PATTERN.exec(file);
      if (!match) continue;
      if (messages.length >= max || Number(match[1]) > now) break; // sorted: nothing later is due either
      const [id, attempt] = [match[4]!, Number(match[3]) + 1];
      const path = join(this.options.root, this.name, CLAIMED, `${attempt}.${id}.${process.pid}.msg`);
      const lease = new Date(Date.now() + this.options.visibilityTimeoutMs);
      // The lease is stamped before the rename, so no other client sees this claim with a stale time.
      const body = await utimes(join(this.ready(this.name), file), lease, lease)
        .then(() => rename(join(this.ready(this.name), file), path))
        .then(() => readFile(path, 'utf8'))
        .catch(ifMissing(undefined)); // another consumer won it
      if (body === undefined) continue;
      this.claims.add(id);
      messages.push({ body, attempt, id, path });
    }
    return messages;
  }

  async ack(message: FileMessage): Promise<void> {
    await this.settled(message, unlink(message.path));
  }

  async retry(message: FileMessage, delayMs: number): Promise<void> {
    await this.settled(message, this.moveToReady(message.path, this.name, message.attempt, message.id, delayMs));
  }

  async poison(message: FileMessage): Promise<void> {
    await this.settled(message, this.moveToReady(message.path, poisonQueueName(this.name), 0, message.id, 0));
  }

  async renew(message: FileMessage): Promise<void> {
    const lease = new Date(Date.now() + this.options.visibilityTimeoutMs);
    await utimes(message.path, lease, lease);
  }

  async release(message: FileMessage): Promise<void> {
    await this.retry(message, 0);
  }

  async close(): Promise<void> {
    this.watcher?.close();
    if (this.wake) localSignals.off(this.ready(this.name), this.wake);
  }

  private ready(name: string): string {
    return join(this.options.root, name, READY);
  }

  /** A claim that is gone was taken back by another client (its lease lapsed): nothing left to do. */
  private async settled(message: FileMessage, operation: Promise<unknown>): Promise<void> {
    try {
      await operation.catch(ifMissing(undefined));
    } finally {
      this.claims.delete(message.id);
    }
  }

  private async moveToReady(from: string, queue: string, attempts: number, id: string, delayMs: number): Promise<void> {
    sequence = (sequence + 1) % 1e9;
    const name = `${String(Date.now() + delayMs).padStart(15, '0')}.${String(sequence).padStart(9, '0')}.${attempts}.${id}.msg`;
    await rename(from, join(this.ready(queue), name));
    localSignals.emit(this.ready(queue));
  }

  /**
   * Puts back claims whose lease expired, or whose process (on this machine) is gone, at most
   * once a second: their consumer died or stalled. The engine poisons one delivered too often.
   */
  private async reapExpiredClaims(): Promise<void> {
    const now = Date.now();
    if (now - this.lastReap < Math.min(1000, this.options.visibilityTimeoutMs / 4)) return;
    this.lastReap = now;
    const folder = join(this.options.root, this.name, CLAIMED);
    for (const file of await readdir(folder)) {
      const match = CLAIMED_PATTERN.exec(file);
      if (!match || this.claims.has(match[2]!)) continue;
      const path = join(folder, file);
      const expired = await stat(path).then(({ mtimeMs }) => mtimeMs <= now || !isAlive(Number(match[3])), ifMissing(false));
      if (expired) await this.moveToReady(path, this.name, Number(match[1]), match[2]!, 0).catch(ifMissing(undefined));
    }
  }
}

/** A rejection handler that turns ENOENT into `value` and rethrows anything else. */
function ifMissing<T>(value: T): (error: NodeJS.ErrnoException) => T {
  return (error) => {
    if (error.code === 'ENOENT') return value;
    throw error;
  };
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
