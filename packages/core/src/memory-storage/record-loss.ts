import type { Logger } from '../util/logger.js';

/** Records a memory DB lost when it cut a torn log tail (a crash mid-write) on load. */
export interface RecordLoss {
  connector: string;
  /** The normalised index name. */
  index: string;
  /** Ids of the records whose last write was cut (upserts and deletes). */
  recordIds: string[];
  /** Documents of those records (`d={documentId}//p=...`), each once. */
  documentIds: string[];
  /** Bytes cut from the log. */
  bytes: number;
}

/** A memory DB that reports {@link RecordLoss}es: the embedded stores with a log on disk. */
export interface RecordLossSource {
  /**
   * Calls `listener` for every loss: those found before it subscribed first, then new ones.
   * Returns the function that unsubscribes.
   */
  onRecordsLost(listener: (loss: RecordLoss) => void): () => void;
}

/** True when `db` reports record losses. */
export function isRecordLossSource(db: unknown): db is RecordLossSource {
  return typeof (db as Partial<RecordLossSource> | null)?.onRecordsLost === 'function';
}

/** The document ids of km record ids (`d={documentId}//p={partId}`); other ids are skipped. */
export function documentIdsOf(recordIds: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const id of recordIds) {
    const end = id.lastIndexOf('//p=');
    if (id.startsWith('d=') && end > 2) ids.add(id.slice(2, end));
  }
  return [...ids];
}

/**
 * Keeps the losses a store found and hands them to its listeners, logging each one with the
 * ids it dropped (to `logger`, else as a process warning, so it is never silent).
 */
export class RecordLossNotifier implements RecordLossSource {
  private readonly losses: RecordLoss[] = [];
  private readonly listeners = new Set<(loss: RecordLoss) => void>();

  constructor(private readonly logger: Logger | undefined) {}

  report(loss: Omit<RecordLoss, 'documentIds'>): void {
    const full: RecordLoss = { ...loss, documentIds: documentIdsOf(loss.recordIds) };
    const message = `[km] [${loss.connector}] index "${loss.index}": cut a torn log tail of ${loss.bytes} bytes (a crash mid-write); records dropped: ${loss.recordIds.join(', ') || 'none readable'}`;
    if (this.logger) this.logger.warn(message, { index: full.index, recordIds: full.recordIds, documentIds: full.documentIds });
    else process.emitWarning(message);
    this.losses.push(full);
    for (const listener of this.listeners) listener(full);
  }

  onRecordsLost(listener: (loss: RecordLoss) => void): () => void {
    this.listeners.add(listener);
    for (const loss of this.losses) listener(loss);
    return () => void this.listeners.delete(listener);
  }
}
