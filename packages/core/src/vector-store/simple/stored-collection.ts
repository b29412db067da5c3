import { InvalidInputError } from '../../errors/km-error.js';
import { RecordLog, type LogEntry } from '@km/embedded-engine/record-log';
import type { Logger } from '../../util/logger.js';
import type { KeyValue, RecordDefinition } from '../record-definition-types.js';
import { definitionDifference, type StoredDefinition } from './stored-definition.js';
import { deleteLogEntry, keyFromLogId, rowFromLogEntry, rowToLogEntry, type StoredRow } from './stored-row.js';

/** The log file in a collection folder. */
export const LOG_FILE = 'records.log';

/** Dead log entries a running collection tolerates before it compacts (on open it compacts at any count). */
const COMPACT_WHILE_RUNNING_AFTER = 1000;

/**
 * One collection of the simple store in memory: its definition, its rows by key and, when the
 * store has a directory, the append-only checksummed log (see `RecordLog`) that persists them.
 * Every change is appended to the log (one write, fsynced when durable) before it is applied in
 * memory, so what a caller was told is written survives a crash. The driver serialises the
 * writes of one collection; reads run against the rows as they are.
 */
export class StoredCollection {
  readonly rows = new Map<KeyValue, StoredRow>();
  /** Definitions already checked against the stored one (by identity: the check runs once per definition object). */
  private readonly verified = new WeakSet<RecordDefinition>();
  /** Entries in the log file, live or not. */
  private logEntries = 0;
  private readonly log: RecordLog | undefined;

  /** @param folder the collection's folder (its log lives there); undefined for a collection in memory only. */
  constructor(
    readonly name: string,
    readonly definition: StoredDefinition,
    folder: string | undefined,
    private readonly connector: string,
    durable = true,
  ) {
    this.log = folder === undefined ? undefined : new RecordLog(folder, durable, LOG_FILE);
  }

  /**
   * Reads a collection folder's log, dropping a torn or corrupt tail (a crash mid-write: the
   * entries before it load, the cut is reported to `logger`), and compacts the log when it
   * holds more than twice as many entries as live records.
   */
  static async load(
    name: string,
    folder: string,
    definition: StoredDefinition,
    options: { durable: boolean; connector: string; logger: Logger | undefined },
  ): Promise<StoredCollection> {
    const collection = new StoredCollection(name, definition, folder, options.connector, options.durable);
    const log = collection.log!;
    const { entries } = await log.loadEach((entry) => collection.apply(entry));
    collection.logEntries = entries;
    if (log.lastCut) {
      const { bytes, recordIds } = log.lastCut;
      const message = `[km] [${options.connector}] collection "${name}": cut a torn log tail of ${bytes} bytes (a crash mid-write); records whose last write was lost: ${recordIds.join(', ') || 'none readable'}`;
      if (options.logger) options.logger.warn(message, { collection: name, bytes, recordIds });
      else process.emitWarning(message);
    }
    if (entries > 2 * collection.rows.size) await collection.compact();
    return collection;
  }

  /** Throws `invalid_argument` naming the first difference when `definition` does not describe this collection's records. */
  verify(definition: RecordDefinition): void {
    if (this.verified.has(definition)) return;
    const difference = definitionDifference(this.definition, definition);
    if (difference) {
      throw new InvalidInputError('invalid_argument', `collection "${this.name}" exists with another definition: ${difference}`, {
        connector: this.connector,
      });
    }
    this.verified.add(definition);
  }

  /** Writes rows (replacing those with the same keys): logged first, then applied. */
  async upsert(rows: readonly StoredRow[]): Promise<void> {
    await this.append(rows.map((row) => rowToLogEntry(this.definition, row)));
    for (const row of rows) this.rows.set(row.key, row);
    await this.compactIfManyDead();
  }

  /** Deletes the rows with these keys; keys not stored are ignored (and not logged). */
  async delete(keys: readonly KeyValue[]): Promise<void> {
    const present = [...new Set(keys)].filter((key) => this.rows.has(key));
    await this.append(present.map(deleteLogEntry));
    for (const key of present) this.rows.delete(key);
    await this.compactIfManyDead();
  }

  /** Closes the log file. */
  async close(): Promise<void> {
    await this.log?.close();
  }

  /** Entries in the log file (live or not); 0 without a directory. */
  get entriesInLog(): number {
    return this.logEntries;
  }

  /**
   * Appends entries in one write. A write that fails part way (a full disk) leaves nothing
   * behind: `RecordLog.append` cuts what it wrote, so later entries never follow a torn one.
   */
  private async append(entries: LogEntry[]): Promise<void> {
    if (!this.log || entries.length === 0) return;
    await this.log.append(entries);
    this.logEntries += entries.length;
  }

  private apply(entry: LogEntry): void {
    if (entry.op === 'delete') this.rows.delete(keyFromLogId(this.definition, entry.id));
    else {
      const row = rowFromLogEntry(this.definition, entry, this.connector);
      this.rows.set(row.key, row);
    }
  }

  private async compactIfManyDead(): Promise<void> {
    const live = this.rows.size;
    if (this.logEntries > 2 * live && this.logEntries - live >= COMPACT_WHILE_RUNNING_AFTER) await this.compact();
  }

  /** Rewrites the log with one entry per live row (atomically: a temporary file renamed into place). */
  private async compact(): Promise<void> {
    if (!this.log) return;
    await this.log.rewrite([...this.rows.values()].map((row) => rowToLogEntry(this.definition, row)));
    this.logEntries = this.rows.size;
  }
}
