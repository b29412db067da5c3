import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IContentStorage } from '../contracts/content-storage.js';
import { KmError, isKmError } from '../errors/km-error.js';
import { KeyedMutex } from '../util/keyed-mutex.js';

/**
 * Folder (a document id that has no pipeline state, so listings step over it) holding the sync
 * leases of an index: one file per source.
 */
export const SYNC_LEASE_FOLDER = '__km_sync';
/** How long a lease lasts without renewal. */
export const SYNC_LEASE_TTL_MS = 15_000;
/** How often a held lease is renewed. */
export const SYNC_LEASE_RENEW_MS = 5_000;
const POLL_MS = 250;

/** What a lease file holds. */
export interface SyncLeaseRecord {
  owner: string;
  host: string;
  pid: number;
  source: string;
  expiresAt: string;
}

/** A held lease: renewed in the background until released. */
export interface SyncLease {
  readonly record: SyncLeaseRecord;
  /** True once a renewal found the lease taken by another owner (it had expired). */
  readonly lost: boolean;
  /** Stops renewing and deletes the lease file if it is still ours. Never throws. */
  release(): Promise<void>;
}

/** Options of {@link acquireSyncLease}. */
export interface SyncLeaseOptions {
  /** Wait up to this long for a busy lease, polling, then fail with `sync_busy`. @default 0 */
  waitMs?: number;
  /** @default 15000 */
  ttlMs?: number;
  /** @default 5000 */
  renewMs?: number;
  signal?: AbortSignal;
}

/** Serialises this process's read-check-write of a lease on storages without conditional writes. */
const processLock = new KeyedMutex();

/** Name of the lease file of a source: from a hash of its id (ids may hold any character). */
export function syncLeaseFileName(sourceId: string): string {
  return `lease-${createHash('sha256').update(sourceId).digest('hex').slice(0, 32)}.json`;
}

/**
 * Takes the lease of (index, source) in the content storage, so two syncs of the same source
 * into the same index never run at once, across processes and machines sharing the storage.
 * A lease is free when missing, expired, or held by a process of this host that is gone (a
 * sync killed with SIGKILL is taken over at once). With the storage's conditional writes
 * (`readFileVersion`/`writeFileIfVersion`) taking it is a compare-and-set; without them, this
 * process's own syncs are serialised and the write is read back (two processes on a storage
 * without conditional writes racing in the same few milliseconds could both win).
 * Throws `sync_busy` when another live sync holds it past `waitMs`.
 */
export async function acquireSyncLease(
  storage: IContentStorage,
  index: string,
  sourceId: string,
  options: SyncLeaseOptions = {},
): Promise<SyncLease> {
  const ttlMs = options.ttlMs ?? SYNC_LEASE_TTL_MS;
  const fileName = syncLeaseFileName(sourceId);
  const record: SyncLeaseRecord = { owner: randomUUID(), host: hostname(), pid: process.pid, source: sourceId, expiresAt: '' };
  const deadline = Date.now() + (options.waitMs ?? 0);
  await storage.createIndexDirectory(index);
  await storage.createDocumentDirectory(index, SYNC_LEASE_FOLDER);
  for (;;) {
    options.signal?.throwIfAborted();
    const holder = await processLock.run(`${index}/${fileName}`, () => tryTake(storage, index, fileName, record, ttlMs));
    if (holder.taken) break;
    if (Date.now() >= deadline) {
      throw new KmError(
        'sync_busy',
        `another sync of source "${sourceId}" into index "${index}" is running (${holder.current.host} pid ${holder.current.pid}, lease until ${holder.current.expiresAt})`,
      );
    }
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())), undefined, options.signal ? { signal: options.signal } : {});
  }
  return new HeldLease(storage, index, fileName, record, ttlMs, options.renewMs ?? SYNC_LEASE_RENEW_MS);
}

type TakeResult = { taken: true } | { taken: false; current: SyncLeaseRecord };

async function tryTake(
  storage: IContentStorage,
  index: string,
  fileName: string,
  record: SyncLeaseRecord,
  ttlMs: number,
): Promise<TakeResult> {
  const current = await readLease(storage, index, fileName);
  if (current.record && current.record.owner !== record.owner && !isStale(current.record)) return { taken: false, current: current.record };
  record.expiresAt = new Date(Date.now() + ttlMs).toISOString();
  const body = JSON.stringify(record);
  if (conditional(storage)) {
    try {
      await storage.writeFileIfVersion!(index, SYNC_LEASE_FOLDER, fileName, body, current.version ?? null);
      return { taken: true };
    } catch (error) {
      if (!isKmError(error, 'write_conflict')) throw error;
      // Another process took it between our read and write: read it again.
      const now = await readLease(storage, index, fileName);
      if (now.record && now.record.owner !== record.owner) return { taken: false, current: now.record };
      return tryTake(storage, index, fileName, record, ttlMs);
    }
  }
  await storage.writeFile(index, SYNC_LEASE_FOLDER, fileName, body);
  const back = await readLease(storage, index, fileName);
  if (back.record && back.record.owner !== record.owner) return { taken: false, current: back.record };
  return { taken: true };
}

async function readLease(
  storage: IContentStorage,
  index: string,
  fileName: string,
): Promise<{ record?: SyncLeaseRecord; version?: string }> {
  let data: Buffer;
  let version: string | undefined;
  try {
    if (conditional(storage)) ({ data, version } = await storage.readFileVersion!(index, SYNC_LEASE_FOLDER, fileName));
    else data = await storage.readFile(index, SYNC_LEASE_FOLDER, fileName);
  } catch (error) {
    if (isKmError(error, 'file_not_found')) return {};
    throw error;
  }
  try {
    const record = JSON.parse(data.toString('utf8')) as SyncLeaseRecord;
    if (typeof record.owner !== 'string' || typeof record.expiresAt !== 'string') throw new Error('not a lease');
    return { record, ...(version !== undefined ? { version } : {}) };
  } catch {
    // A torn or foreign file holds nothing: it is free (and overwritten).
    return version !== undefined ? { version } : {};
  }
}

/** Expired, or held by a process of this host that no longer runs. */
export function isStale(record: SyncLeaseRecord, now = Date.now()): boolean {
  const expires = Date.parse(record.expiresAt);
  if (!Number.isFinite(expires) || expires <= now) return true;
  if (record.host === hostname() && record.pid !== process.pid && !isProcessAlive(record.pid)) return true;
  return false;
}

function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function conditional(storage: IContentStorage): boolean {
  return typeof storage.readFileVersion === 'function' && typeof storage.writeFileIfVersion === 'function';
}

class HeldLease implements SyncLease {
  lost = false;
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: IContentStorage,
    private readonly index: string,
    private readonly fileName: string,
    readonly record: SyncLeaseRecord,
    private readonly ttlMs: number,
    renewMs: number,
  ) {
    this.timer = setInterval(() => {
      this.renewing = this.renewing.then(() => this.renew()).catch(() => undefined);
    }, renewMs);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    await processLock.run(`${this.index}/${this.fileName}`, async () => {
      const current = await readLease(this.storage, this.index, this.fileName);
      if (current.record && current.record.owner !== this.record.owner) {
        this.lost = true;
        return;
      }
      this.record.expiresAt = new Date(Date.now() + this.ttlMs).toISOString();
      const body = JSON.stringify(this.record);
      if (conditional(this.storage)) {
        try {
          await this.storage.writeFileIfVersion!(this.index, SYNC_LEASE_FOLDER, this.fileName, body, current.version ?? null);
        } catch (error) {
          if (isKmError(error, 'write_conflict')) this.lost = true;
          else throw error;
        }
      } else await this.storage.writeFile(this.index, SYNC_LEASE_FOLDER, this.fileName, body);
    });
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    await processLock
      .run(`${this.index}/${this.fileName}`, async () => {
        const current = await readLease(this.storage, this.index, this.fileName);
        if (current.record?.owner !== this.record.owner) return;
        await this.storage.deleteFile(this.index, SYNC_LEASE_FOLDER, this.fileName);
      })
      .catch(() => undefined);
  }
}
