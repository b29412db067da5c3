import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { KeyedMutex } from '../util/keyed-mutex.js';
import type { Logger } from '../util/logger.js';
import { listIndexFolders } from './index-folders.js';
import type { RecordLog } from '@km/embedded-engine/record-log';
import { RecordLossNotifier, type RecordLoss, type RecordLossSource } from './record-loss.js';

/** Options of the embedded stores' drivers. */
export interface LogBackedDriverOptions {
  /** Folder that persists every index; volatile (process memory only) when missing. */
  directory?: string | undefined;
  /** fsync every write, so an acknowledged write survives a power cut. @default true */
  durable?: boolean | undefined;
  /** Where a torn log tail cut on load is reported, with the record ids it dropped. @default a process warning */
  logger?: Logger | undefined;
}

/**
 * What the embedded stores (SimpleVectorDb, SimpleTextDb) share: indexes in memory, each with
 * an append-only log in its own folder when there is a directory, loaded once on first use; a
 * lock per index; index deletion; and the report of records lost to a torn log tail.
 */
export abstract class LogBackedDriver<Index extends { log: RecordLog | undefined }> implements RecordLossSource {
  abstract readonly name: string;
  protected readonly directory: string | undefined;
  protected readonly durable: boolean;
  protected readonly indexes = new Map<string, Index>();
  protected readonly mutex = new KeyedMutex();
  private readonly losses: RecordLossNotifier;
  private loading: Promise<void> | undefined;

  constructor(options: LogBackedDriverOptions = {}) {
    this.losses = new RecordLossNotifier(options.logger);
    this.directory = options.directory === undefined ? undefined : resolve(options.directory);
    this.durable = options.durable ?? true;
  }

  async deleteIndex(name: string): Promise<void> {
    await this.ready();
    await this.mutex.run(name, async () => {
      const index = this.indexes.get(name);
      this.indexes.delete(name);
      await index?.log?.close();
      if (this.directory) await rm(join(this.directory, name), { recursive: true, force: true });
    });
  }

  /** Closes open files; the instance must not be used afterwards. */
  async close(): Promise<void> {
    for (const index of this.indexes.values()) await index.log?.close();
  }

  /**
   * Reports the records lost to a torn log tail (a crash mid-write) that this process cut when
   * it opened an index; losses found before subscribing are replayed. `MemoryService` re-runs
   * `save_records` for the documents named.
   */
  onRecordsLost(listener: (loss: RecordLoss) => void): () => void {
    return this.losses.onRecordsLost(listener);
  }

  /** Loads every index folder, once. */
  protected ready(): Promise<void> {
    this.loading ??= (async () => {
      if (!this.directory) return;
      for (const name of await listIndexFolders(this.directory)) {
        const index = await this.loadIndex(name);
        if (index) this.indexes.set(name, index);
      }
    })();
    return this.loading;
  }

  /** Reads one index folder at start-up (repairing a torn tail); undefined when it is not an index. */
  protected abstract loadIndex(name: string): Promise<Index | undefined>;

  /** Reports the tail a log cut while loading, if it cut one. */
  protected reportCut(name: string, log: RecordLog): void {
    if (log.lastCut) this.losses.report({ connector: this.name, index: name, bytes: log.lastCut.bytes, recordIds: log.lastCut.recordIds });
  }
}
